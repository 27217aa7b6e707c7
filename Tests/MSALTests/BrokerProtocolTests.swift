import Foundation
import Testing
@testable import MSALCore

/// The broker's JSON contract as Microsoft's own client (msalruntime) writes and reads it: requests shaped as it sends
/// them, answers read as it reads them, every failure a typed error.
@Suite("Broker protocol")
struct BrokerProtocolTests {
    static let account = BrokerAccount(
        homeAccountId: "8d4c2a1b-3e5f-4a6b-9c7d-0e1f2a3b4c5d.5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13",
        environment: "login.microsoftonline.com", realm: "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13",
        localAccountId: "8d4c2a1b-3e5f-4a6b-9c7d-0e1f2a3b4c5d", username: "adele@contoso.onmicrosoft.com")

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func tokenAnswer(account: String = account.homeAccountId, expiresOn: Any = 1_900_000_000_000,
                            scopes: Any = "User.Read openid profile") -> Data {
        let object: [String: Any] = ["brokerTokenResponse": [
            "account": ["homeAccountId": account, "environment": "login.microsoftonline.com",
                        "realm": "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13", "localAccountId": "8d4c2a1b",
                        "username": "adele@contoso.onmicrosoft.com"],
            "accessToken": "at", "accessTokenType": 0, "expiresOn": expiresOn, "extendedExpiresOn": 1_900_003_600_000,
            "idToken": "a.b.c", "clientInfo": "eyJ1aWQiOiJ4In0", "grantedScopes": scopes,
        ]]
        return try! JSONSerialization.data(withJSONObject: object)
    }

    @Test func requestsAreShapedAsMicrosoftsClientSendsThem() throws {
        let accounts = try Self.json(BrokerRequest.accounts(clientId: "c", redirectUri: "r").body)
        #expect(accounts as NSDictionary == ["clientId": "c", "redirectUri": "r"] as NSDictionary)
        let parameters = BrokerRequest.AuthParameters(
            authorizationType: .cachedRefreshToken, authority: "https://login.microsoftonline.com/common", clientId: "c",
            redirectUri: "https://login.microsoftonline.com/common/oauth2/nativeclient", scopes: ["User.Read"],
            claims: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#, account: Self.account)
        let silent = BrokerRequest.silentToken(parameters)
        #expect(silent.method == .acquireTokenSilently)
        let auth = try #require(try Self.json(silent.body)["authParameters"] as? [String: Any])
        #expect(auth["authorizationType"] as? Int == 1)
        #expect(auth["requestedScopes"] as? [String] == ["User.Read"])
        #expect(auth["decodedClaims"] as? String == #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)
        #expect((auth["account"] as? [String: Any])?["homeAccountId"] as? String == Self.account.homeAccountId)
        #expect(auth["username"] as? String == Self.account.username)
        var interactive = parameters
        interactive.authorizationType = .interactive
        #expect(BrokerRequest.interactiveToken(interactive).method == .acquireTokenInteractively)
        #expect(BrokerRequest.signOut(parameters).method == .signOutSilently)
        #expect(try Self.json(BrokerRequest.version(clientVersion: "1.0.0").body)["msalCppVersion"] as? String == "1.0.0")
    }

    @Test func aTokenAnswerIsReadWithMillisecondsAndAStringOfScopes() throws {
        let token = try BrokerAnswer.token(Self.tokenAnswer(), expected: Self.account, correlationId: nil)
        #expect(token.accessToken == "at" && token.idToken == "a.b.c" && token.accessTokenType == 0)
        #expect(token.expiresOn == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(token.grantedScopes == ["User.Read", "openid", "profile"])
        #expect(token.account.username == "adele@contoso.onmicrosoft.com")
    }

    @Test func anAnswerForAnotherAccountIsRefused() {
        #expect {
            try BrokerAnswer.token(Self.tokenAnswer(account: "someone.else"), expected: Self.account, correlationId: nil)
        } throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorMismatchedUser }
    }

    @Test func malformedAnswersAreTypedErrors() {
        for data in [Data("not json".utf8), Data("[]".utf8), Data("{}".utf8), Self.tokenAnswer(expiresOn: "soon"),
                     Self.tokenAnswer(expiresOn: -5), Self.tokenAnswer(expiresOn: 10), Data(repeating: 32, count: BrokerAnswer.maximumSize + 1)] {
            #expect(throws: MSALErrorInfo.self) { try BrokerAnswer.token(data, expected: nil, correlationId: nil) }
        }
        #expect(throws: MSALErrorInfo.self) { try BrokerAnswer.accounts(Data(#"{"accounts": 3}"#.utf8), correlationId: nil) }
        #expect(throws: MSALErrorInfo.self) { try BrokerAnswer.version(Data(#"{"linuxBrokerVersion": ""}"#.utf8), correlationId: nil) }
    }

    @Test(arguments: [
        (2, 0, MSALError.interactionRequired), (13, 0, .interactionRequired), (7, 0, .userCanceled),
        (17, 0, .workplaceJoinRequired), (2, 18, .serverProtectionPoliciesRequired), (3, 0, .serverError),
        (0, 0, .internal), (21, 0, .internal),
    ])
    func brokerErrorsMapToMSALErrors(status: Int, subStatus: Int, expected: MSALError) throws {
        let answer = try JSONSerialization.data(withJSONObject: ["brokerTokenResponse": ["error": [
            "status": status, "subStatus": subStatus, "errorCode": 53003, "tag": 508_884_100,
            "context": "AADSTS53003: Access has been blocked by Conditional Access policies.",
        ]]])
        do {
            _ = try BrokerAnswer.token(answer, expected: Self.account, correlationId: nil)
            Issue.record("an error answer gave a token")
        } catch let error as MSALErrorInfo {
            #expect(error.code == expected)
            #expect(error.errorDescription.contains("AADSTS53003") && error.errorDescription.contains("Status: \(status)"))
            if status == 21 { #expect(error.internalCode == .internalBrokerNotAvailable) }
        }
    }

    @Test func accountsAndSignOutAnswers() throws {
        let list = try JSONSerialization.data(withJSONObject: ["accounts": [
            ["homeAccountId": "a.b", "username": "u@x", "environment": "e", "realm": "b", "localAccountId": "a"],
            ["username": "no home account id"],
        ]])
        #expect(try BrokerAnswer.accounts(list, correlationId: nil).map(\.homeAccountId) == ["a.b"])
        #expect(try BrokerAnswer.signedOut(Data(#"{"isSignOutComplete": true}"#.utf8), correlationId: nil))
        #expect(try !BrokerAnswer.signedOut(Data(#"{"isSignOutComplete": false}"#.utf8), correlationId: nil))
        #expect(throws: MSALErrorInfo.self) {
            try BrokerAnswer.signedOut(Data(#"{"error": {"status": 19, "context": "no such account"}}"#.utf8), correlationId: nil)
        }
    }
}
