import Foundation
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator

/// Moving the emulator's clock ahead (the documented way to expire what it issued) with clients that keep the
/// machine's time: later sign-ins, refreshes and web APIs that check tokens by their own clock keep working.
@Suite("Emulator clock advance with clients on the machine's clock", .serialized)
struct EmulatorClockAdvanceTests {
    static let hours: TimeInterval = 3 * 3600

    func startEmulator() async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.lifetimes.deviceCodeInterval = 1
        return try await IdentityEmulator.start(configuration)
    }

    func makeApp(_ emulator: IdentityEmulator, storage: MSALInMemoryTokenCacheStorage) throws -> MSALPublicClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: url))
        config.httpClient = MSALRecordingHTTPClient()
        config.cacheConfig.storage = storage
        return try MSALPublicClientApplication(configuration: config)
    }

    func interactive(_ scopes: [String]) -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
    }

    func graphStatus(_ emulator: IdentityEmulator, _ result: MSALResult) async throws -> Int {
        let me = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/me")!
        return try await NoRedirectFetcher.fetch(me, headers: ["Authorization": result.authorizationHeader]).0
    }

    /// The claims of a JWT, unverified.
    func claims(_ jwt: String) throws -> [String: Any] {
        let payload = try #require(jwt.split(separator: ".").dropFirst().first)
        let data = try #require(Base64URL.decode(String(payload)))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("Sign in, move the clock hours ahead: old tokens are expired, refresh and new sign-ins work")
    func advanceAgesIssuedTokensOnly() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeApp(emulator, storage: storage)
        let first = try await app.acquireToken(with: interactive(["User.Read"]))
        #expect(try await graphStatus(emulator, first) == 200)

        emulator.clock.advance(by: Self.hours)

        // What the emulator issued before is now hours older: Graph refuses the old access token.
        #expect(try await graphStatus(emulator, first) == 401)

        // The application's cache learns of the expiry its own way (here, aged like a cache hours later); the
        // silent call refreshes with the refresh token issued before the advance.
        try MSALTokenCacheAging.expireAccessTokens(in: storage)
        let refreshed = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(refreshed.accessToken != first.accessToken)
        #expect(try await graphStatus(emulator, refreshed) == 200)

        // New tokens carry the machine's time: a client or web API that checks them by its own clock accepts them.
        let now = Date().timeIntervalSince1970
        let idClaims = try claims(try #require(refreshed.idToken))
        let iat = try #require(idClaims["iat"] as? Double ?? (idClaims["iat"] as? Int).map(Double.init))
        #expect(abs(iat - now) < 120, "iat is the machine's time, not hours ahead")

        // A new interactive sign-in and a new device code sign-in both work.
        let again = try await app.acquireToken(with: interactive(["User.Read"]))
        #expect(again.account.username == emulator.username)
        #expect(try await graphStatus(emulator, again) == 200)
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        let device = try await flow.result()
        #expect(device.account.username == emulator.username)
    }

    @Test("A refresh token issued before the advance expires by the emulated clock")
    func refreshTokensAge() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.lifetimes.refreshToken = 3600
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeApp(emulator, storage: storage)
        let first = try await app.acquireToken(with: interactive(["User.Read"]))
        emulator.clock.advance(by: Self.hours)
        try MSALTokenCacheAging.expireAccessTokens(in: storage)
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        }
        #expect(error?.code == .interactionRequired)
        // Signing in again works at once.
        let again = try await app.acquireToken(with: interactive(["User.Read"]))
        #expect(try await graphStatus(emulator, again) == 200)
    }

    @Test("After an advance, a web API checking tokens by its own clock accepts a new sign-in's token and refuses the old one")
    func webAPIsKeepAcceptingNewTokens() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let api = "api://\(EmulatorConfiguration.middleTierClientId)"
        let scopes = ["\(api)/access_as_user"]
        let client = try makeApp(emulator, storage: MSALInMemoryTokenCacheStorage())
        let before = try await client.acquireToken(with: interactive(scopes))
        emulator.clock.advance(by: Self.hours)
        let after = try await client.acquireToken(with: interactive(scopes))

        // The middle tier on the machine's clock: the new token is valid now (its nbf is not hours ahead).
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(clientId: EmulatorConfiguration.middleTierClientId,
                                                             clientCredential: .secret("middle-tier-secret"),
                                                             authority: try MSALAuthority(url: url))
        config.httpClient = MSALRecordingHTTPClient()
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let middle = try MSALConfidentialClientApplication(configuration: config)
        let audiences = [EmulatorConfiguration.middleTierClientId, api]
        let valid = try await middle.validateAccessToken(after.accessToken, audiences: audiences, requiredScopes: ["access_as_user"])
        #expect(valid.username == emulator.username)

        // On-behalf-of with the new token works; the emulator refuses the token issued before the advance.
        let parameters = MSALOnBehalfOfParameters(scopes: ["User.Read"], userAssertion: after.accessToken)
        let graph = try await middle.acquireTokenOnBehalfOf(with: parameters)
        #expect(try await graphStatus(emulator, graph) == 200)
        let stale = await #expect(throws: MSALErrorInfo.self) {
            try await middle.acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(scopes: ["User.Read"], userAssertion: before.accessToken))
        }
        #expect(stale?.oauthError == "invalid_grant")
    }
}
