import Foundation
import Testing
@testable import MSALEmulatorCore

/// The emulated broker's answers, in the shapes Microsoft's broker writes (msalruntime's serializer): integer
/// milliseconds, `grantedScopes` a string, the raw id token, base64url `clientInfo`, every account key, errors as JSON
/// with the broker's status numbers inside `brokerTokenResponse` for token methods and at the top for the others.
@Suite("The emulated broker's answers")
struct EmulatedBrokerAnswerTests {
    static let keys: SigningKeys = try! SigningKeys()
    let core = EmulatorCore(config: .default, keys: keys, clock: EmulatorClock(), faults: FaultTable([]))
    let client = EmulatorConfiguration.demoClientId
    let tenant = EmulatorConfiguration.demoTenantId

    func parameters(_ type: Int, _ extra: [String: Any] = [:]) -> Data {
        var object: [String: Any] = ["authorizationType": type, "authority": "https://127.0.0.1/\(tenant)", "clientId": client,
                                     "redirectUri": "https://login.microsoftonline.com/common/oauth2/nativeclient",
                                     "requestedScopes": ["User.Read"]]
        object.merge(extra) { $1 }
        return try! JSONSerialization.data(withJSONObject: ["authParameters": object])
    }

    func call(_ method: String, _ body: Data, approve: EmulatedBrokerApprover? = { _ in "adele@contoso.onmicrosoft.com" }) async -> [String: Any] {
        let answer = await core.brokerAnswer(method, correlationId: UUID().uuidString, request: body,
                                             issuerBase: "https://127.0.0.1:8443", approve: approve)
        return (try? JSONSerialization.jsonObject(with: answer ?? Data())) as? [String: Any] ?? [:]
    }

    @Test func aSignInAnswersInTheBrokersShapes() async throws {
        let first = await call("acquireTokenSilently", parameters(1, ["account": NSNull(), "isSignIn": true]))
        let error = (first["brokerTokenResponse"] as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["status"] as? Int == 2)   // InteractionRequired: Microsoft's client then signs in interactively
        #expect(error?["tag"] is Int && error?["errorCode"] is Int && error?["context"] is String)

        let signIn = await call("acquireTokenInteractively", parameters(6))
        let token = try #require(signIn["brokerTokenResponse"] as? [String: Any])
        #expect(token["accessTokenType"] as? Int == 0)
        let expiresOn = try #require(token["expiresOn"] as? Int)
        #expect(expiresOn > Int(Date().timeIntervalSince1970) * 1000)   // milliseconds
        #expect(token["extendedExpiresOn"] is Int)
        #expect((token["grantedScopes"] as? String)?.contains("User.Read") == true)
        #expect((token["idToken"] as? String)?.split(separator: ".").count == 3)
        #expect((token["clientInfo"] as? String)?.contains("=") == false)
        let account = try #require(token["account"] as? [String: Any])
        for key in ["homeAccountId", "environment", "realm", "localAccountId", "username", "givenName", "familyName",
                    "middleName", "name", "alternativeAccountId", "clientInfo", "passwordExpiry", "passwordChangeUrl",
                    "homeEnvironment"] {
            #expect(account[key] != nil, "account.\(key)")
        }
        #expect(account["realm"] as? String == tenant)

        let accounts = await call("getAccounts", try JSONSerialization.data(withJSONObject: ["clientId": client, "redirectUri": client]))
        #expect((accounts["accounts"] as? [[String: Any]])?.count == 1)
        let silent = await call("acquireTokenSilently", parameters(1, ["account": account]))
        #expect((silent["brokerTokenResponse"] as? [String: Any])?["accessToken"] is String)

        let cookie = await call("acquirePrtSsoCookie", try JSONSerialization.data(withJSONObject: [
            "account": account, "ssoUrl": "https://login.microsoftonline.com/?sso_nonce=n0nce"]))
        #expect((cookie["cookieItems"] as? [[String: Any]])?.first?["cookieName"] as? String == "x-ms-RefreshTokenCredential")

        let version = await call("getLinuxBrokerVersion", Data(#"{"msalCppVersion":"12.0.2"}"#.utf8))
        #expect(version["linuxBrokerVersion"] as? String == EmulatorCore.brokerVersion)

        let out = await call("signOutSilently", parameters(12, ["account": account]))
        #expect(out["isSignOutComplete"] as? Bool == true)
        let gone = await call("acquireTokenSilently", parameters(1, ["account": account]))
        #expect(((gone["brokerTokenResponse"] as? [String: Any])?["error"] as? [String: Any])?["status"] as? Int == 19)
    }

    @Test func refusalsAreJSONErrorsWithTheBrokersStatus() async throws {
        let canceled = await call("acquireTokenInteractively", parameters(6), approve: { _ in nil })
        #expect(((canceled["brokerTokenResponse"] as? [String: Any])?["error"] as? [String: Any])?["status"] as? Int == 7)
        let adfs = await call("acquireTokenInteractively", parameters(6, ["authority": "https://sts.contoso.com/adfs"]))
        #expect(((adfs["brokerTokenResponse"] as? [String: Any])?["error"] as? [String: Any])?["status"] as? Int == 9)
        let garbage = await call("getAccounts", Data("not json".utf8))
        #expect((garbage["error"] as? [String: Any])?["status"] as? Int == 6)
        let unknown = await core.brokerAnswer("noSuchMethod", correlationId: "x", request: Data("{}".utf8), issuerBase: "https://h")
        #expect(unknown == nil)
    }
}
