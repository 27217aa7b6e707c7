import Foundation
@testable import MSALCore

/// The broker's answers: any process can take the broker's name on the session bus, so each answer is read as
/// hostile input. Every reader either gives a value or throws MSALErrorInfo; a token is only ever for the account
/// that was asked for.
enum BrokerFuzzing {
    static let expected = BrokerAccount(homeAccountId: "uid.utid", environment: "login.microsoftonline.com", realm: "utid",
                                        localAccountId: "uid", username: "adele@contoso.onmicrosoft.com")

    static func answer(_ data: Data) throws {
        if let token = try fuzzExpectingTypedErrors("BrokerAnswer.token", {
            try BrokerAnswer.token(data, expected: expected, correlationId: FuzzFixtures.correlationId)
        }) {
            try fuzzCheck(token.account.homeAccountId.lowercased() == expected.homeAccountId,
                          "a token for another account was taken")
            try fuzzCheck(!token.accessToken.isEmpty && token.expiresOn.timeIntervalSince1970 > 0,
                          "a token without an access token or an expiry was taken")
            if let signed = token.signedHttpRequest {
                try fuzzCheck(signed.split(separator: ".", omittingEmptySubsequences: false).count == 3
                              && !signed.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" || $0 == "\"" }),
                              "a signed request that is not a compact JWS was taken")
            }
        }
        if let signed = try fuzzExpectingTypedErrors("BrokerAnswer.signedHTTPRequest", {
            try BrokerAnswer.signedHTTPRequest(data, correlationId: nil)
        }) {
            try fuzzCheck(signed.split(separator: ".", omittingEmptySubsequences: false).count == 3,
                          "a signed request that is not a compact JWS was taken")
        }
        _ = try fuzzExpectingTypedErrors("BrokerAnswer.accounts") { try BrokerAnswer.accounts(data, correlationId: nil) }
        _ = try fuzzExpectingTypedErrors("BrokerAnswer.signedOut") { try BrokerAnswer.signedOut(data, correlationId: nil) }
        _ = try fuzzExpectingTypedErrors("BrokerAnswer.version") { try BrokerAnswer.version(data, correlationId: nil) }
        // Whether a PoP answer's access token is the broker's signed request: any text, no trap.
        let text = String(decoding: data.prefix(BrokerAnswer.maximumSize), as: UTF8.self)
        if LinuxBroker.isSignedRequest(text) {
            try fuzzCheck(BrokerAnswer.compactJWS(text) != nil, "a signed request that is not a compact JWS was taken")
        }
        try authenticator(data)
        try ssoExtension(data)
    }

    /// The Enterprise SSO extension's answer (the header fields of its response): a JSON object of strings here.
    static func ssoExtension(_ data: Data) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
        let fields = object.compactMapValues { $0 as? String }
        for operation in SSOExtensionRequest.Operation.allCases {
            _ = try fuzzExpectingTypedErrors("SSOExtensionAnswer.checked") {
                try SSOExtensionAnswer.checked(fields, operation, correlationId: FuzzFixtures.correlationId)
            }
        }
        _ = try fuzzExpectingTypedErrors("SSOExtensionAnswer.accounts") {
            try SSOExtensionAnswer.accounts(fields, correlationId: FuzzFixtures.correlationId)
        }
        _ = SSOExtensionAnswer.deviceInfo(fields)
        if let response = try fuzzExpectingTypedErrors("SSOExtensionAnswer.tokenResponse", {
            try SSOExtensionAnswer.tokenResponse(fields, now: Date(timeIntervalSince1970: 1_800_000_000),
                                                 correlationId: FuzzFixtures.correlationId)
        }) {
            try acceptStep(response)
        }
    }

    /// A broker's token through the accept step's bounds and into the cache: lifetimes within 0…10 years whatever
    /// the broker sent, and a cache write and rewrite that never trap (an out-of-range lifetime once reached
    /// `Int64(...)` there).
    static func acceptStep(_ raw: TokenResponse) throws {
        let response = ClientEngine.bounded(raw)
        for lifetime in [response.expiresIn, response.extExpiresIn, response.refreshIn] {
            try fuzzCheck(lifetime.map { $0.isFinite && $0 >= 0 && $0 <= ExternalNumber.maximumLifetime } ?? true,
                          "a broker's lifetime passed the accept step unbounded")
        }
        let now = FuzzFixtures.now
        // The raw values too: a timestamp saturates rather than trap.
        for lifetime in [raw.expiresIn, raw.extExpiresIn, raw.refreshIn].compactMap({ $0 }) {
            _ = CacheTimestamp(now.addingTimeInterval(lifetime))
        }
        var write = CacheFuzzing.signInResponse()
        let expiresIn = response.expiresIn ?? 600
        write.expiresOn = now.addingTimeInterval(expiresIn)
        write.extendedExpiresOn = now.addingTimeInterval(response.extExpiresIn ?? expiresIn)
        write.refreshOn = response.refreshIn.map { now.addingTimeInterval($0) }
        let document = TokenCacheDocument()
        _ = document.saveTokenResponse(write)
        let reread = try? TokenCacheDocument.parse(document.serialize())
        try fuzzCheck(reread?.accessTokenCount == 1, "a broker's token written to the cache did not read back")
    }

    /// Microsoft Authenticator's answer URL (any app can open the redirect URI): decrypted with a fixed broker key
    /// against a fixed request; every failure is typed, and an accepted answer carries the request's nonce.
    static let brokerKey = Data((0..<32).map { UInt8($0) })
    static let resume = AuthenticatorResumeState(
        authority: "https://login.microsoftonline.com/common", clientId: "0b6f1c3a-52d4-4e07-9a3b-7c1e2d4f6a80",
        redirectUri: "msauth.com.example.msaldemo://auth", correlationId: FuzzFixtures.correlationId,
        brokerNonce: "nonce-1", scopes: ["User.Read"])

    static func authenticator(_ data: Data) throws {
        guard let text = String(data: data, encoding: .utf8), let url = URL(string: text) else { return }
        if let fields = try fuzzExpectingTypedErrors("AuthenticatorBrokerResponse.fields", {
            try AuthenticatorBrokerResponse.fields(url, key: brokerKey, resume: resume, sourceApplication: nil)
        }) {
            try fuzzCheck(fields["broker_nonce"] == resume.brokerNonce, "an answer to another request was taken")
            if let response = try fuzzExpectingTypedErrors("AuthenticatorBrokerResponse.tokenResponse", {
                try AuthenticatorBrokerResponse.tokenResponse(fields, now: Date(timeIntervalSince1970: 1_800_000_000),
                                                              correlationId: FuzzFixtures.correlationId)
            }) {
                try acceptStep(response)
            }
        }
    }
}
