import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// What an OpenID client must refuse (OpenID Connect Core §3.1.3.7, §12.2; RFC 6749 §5.1), through the library
/// against a provider that misbehaves in one way at a time.
@Suite("Id token trust: signatures, audiences, subjects, clocks")
struct IdTokenTrustTests {
    let provider = MSALScriptedIdentityProvider(host: "login-trust-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    private func expectRefused(_ app: MSALPublicClientApplication, _ internalCode: MSALInternalError = .internalErrorInvalidResponse,
                               mentioning text: String, freshCache: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: MSALErrorInfo.self, sourceLocation: sourceLocation) {
            try await app.acquireToken(with: interactiveParameters(provider))
        }
        #expect(error?.internalCode == internalCode, sourceLocation: sourceLocation)
        #expect(error?.errorDescription.contains(text) == true, "\(error?.errorDescription ?? "")", sourceLocation: sourceLocation)
        if freshCache {
            #expect((try? app.allAccounts())?.isEmpty == true, "nothing may be cached", sourceLocation: sourceLocation)
        }
    }

    private static func unsigned(_ token: String, alg: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return TestJWT.segment(["alg": alg, "typ": "JWT"]) + "." + parts[1] + "."
    }

    @Test("A correctly signed id token signs in; its keys are fetched once")
    func signedTokenSignsIn() async throws {
        let app = try makeFakeApp(provider)
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        #expect(provider.keyRequests == 1)
    }

    @Test("alg none, HMAC and forged signatures are refused", arguments: ["none", "HS256", "forged"])
    func badSignaturesAreRefused(_ kind: String) async throws {
        provider.idTokenRewrite = { token in
            switch kind {
            case "forged":
                let parts = token.split(separator: ".").map(String.init)
                var claims = try! JSONSerialization.jsonObject(with: Base64URL.decode(parts[1])!) as! [String: Any]
                claims["name"] = "Mallory"
                return parts[0] + "." + TestJWT.segment(claims) + "." + parts[2]
            default:
                return Self.unsigned(token, alg: kind) + (kind == "HS256" ? "c2lnbmF0dXJl" : "")
            }
        }
        let app = try makeFakeApp(provider)
        await expectRefused(app, mentioning: kind == "forged" ? "does not verify" : "algorithm")
    }

    @Test("Without jwks_uri, TLS is relied on, but an unsigned token is still refused")
    func noKeySetRelyOnTransport() async throws {
        provider.publishesKeys = false
        let app = try makeFakeApp(provider)
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        #expect(provider.keyRequests == 0)
        provider.idTokenRewrite = { Self.unsigned($0, alg: "none") }
        await expectRefused(app, mentioning: "unsigned", freshCache: false)
    }

    @Test("An unknown kid refetches the keys once (rollover), and at most once per interval")
    func unknownKidRefetchesOnce() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        #expect(provider.keyRequests == 1)
        // The provider rolls its key over: the next token names a kid the cached set lacks.
        provider.signingKeyId = "k2"
        clock.advance(60)
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        #expect(provider.keyRequests == 2)
        // A token naming a kid nobody publishes: one refetch, then refusal; no refetch storm.
        provider.idTokenRewrite = { token in
            let parts = token.split(separator: ".").map(String.init)
            return TestJWT.segment(["alg": "RS256", "typ": "JWT", "kid": "k9"]) + "." + parts[1] + "." + parts[2]
        }
        clock.advance(60)
        await expectRefused(app, mentioning: "kid", freshCache: false)
        #expect(provider.keyRequests == 3)
        await expectRefused(app, mentioning: "kid", freshCache: false)
        #expect(provider.keyRequests == 3)
    }

    @Test("An untrusted second audience, or an azp that is not the client, is refused")
    func audiences() async throws {
        let clientId = provider.clientId
        provider.idTokenClaims = { $0["aud"] = [clientId, "another-application"] }
        await expectRefused(try makeFakeApp(provider), mentioning: "aud")
        provider.idTokenClaims = { $0["azp"] = "another-application" }
        await expectRefused(try makeFakeApp(provider), mentioning: "azp")
    }

    @Test("Messages name the failed check without echoing claim values")
    func messagesDoNotEchoClaims() async throws {
        provider.idTokenClaims = { $0["iss"] = "https://evil.example/\u{1b}]0;pwned\u{07}" }
        let app = try makeFakeApp(provider)
        let error = await #expect(throws: MSALErrorInfo.self) { try await app.acquireToken(with: interactiveParameters(provider)) }
        #expect(error?.errorDescription.contains("iss") == true)
        #expect(error?.errorDescription.contains("evil") == false)
        #expect(error?.errorDescription.contains("\u{1b}") == false)
    }

    @Test("An id token naming another user than client_info is refused")
    func oidMustMatchClientInfo() async throws {
        provider.idTokenClaims = { $0["oid"] = "00000000-0000-0000-0000-00000000dead" }
        await expectRefused(try makeFakeApp(provider), .internalErrorMismatchedUser, mentioning: "oid")
    }

    @Test("A code redemption without an id token is refused")
    func idTokenRequiredForSignIn() async throws {
        provider.sendsIdToken = false
        await expectRefused(try makeFakeApp(provider), mentioning: "id_token")
    }

    @Test("A token response without token_type is refused")
    func tokenTypeRequired() async throws {
        let app = try makeFakeApp(provider)
        let body: [String: Any] = ["access_token": "at", "expires_in": 3600, "scope": "User.Read",
                                   "client_info": provider.clientInfo(), "id_token": provider.idToken(nonce: nil)]
        provider.scripted = [MSALHTTPResponse(statusCode: 200, body: try JSONSerialization.data(withJSONObject: body))]
        await expectRefused(app, mentioning: "token_type")
    }

    @Test("A refresh whose id token names another subject replaces nothing")
    func refreshMustKeepSubject() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let signedIn = try await app.acquireToken(with: interactiveParameters(provider))
        clock.advance(3600)
        provider.idTokenClaims = { $0["sub"] = "someone-else" }
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        let error = await #expect(throws: MSALErrorInfo.self) { try await app.acquireTokenSilent(with: parameters) }
        #expect(error?.internalCode == .internalErrorMismatchedUser)
        provider.idTokenClaims = nil
        let account = try #require(try app.allAccounts().first)
        #expect(account.accountClaims?["sub"] as? String == "sub-\(provider.user.oid)")
    }

    @Test("An error redirect without this request's state does not end the sign-in as the server's answer")
    func errorRedirectNeedsState() async throws {
        struct StatelessError: MSALDirectWebAuthenticator {
            func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
                MSALWebAuthenticationResponse(redirectUri: request.redirectUri,
                                              parameters: ["error": "access_denied", "error_description": "planted"])
            }
        }
        let app = try makeFakeApp(provider)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = StatelessError()
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        }
        #expect(error?.internalCode == .internalErrorInvalidState)
        #expect(error?.code != .userCanceled)
    }

    @Test("A client clock hours off still signs in when the provider sends its Date")
    func skewedClientUsesServerClock() async throws {
        let serverNow = Date()
        let clock = MSALTestClock(serverNow.addingTimeInterval(3 * 3600))
        let app = try makeFakeApp(provider, clock: clock)
        provider.clock = MSALTestClock(serverNow)
        provider.serverDate = serverNow
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        // Without the header, the local clock is all there is: the token looks expired.
        provider.serverDate = nil
        let second = try makeFakeApp(provider, clock: clock)
        provider.clock = MSALTestClock(serverNow)
        await expectRefused(second, mentioning: "exp")
    }

    @Test("A token expired by the provider's own clock is refused whatever the local clock says")
    func expiredByServerClock() async throws {
        let serverNow = Date()
        let clock = MSALTestClock(serverNow.addingTimeInterval(-3 * 3600))
        let app = try makeFakeApp(provider, clock: clock)
        provider.clock = MSALTestClock(serverNow.addingTimeInterval(-7200))
        provider.serverDate = serverNow
        await expectRefused(app, mentioning: "exp")
    }
}
