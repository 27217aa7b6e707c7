import Foundation
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALSamples

/// The library's flows against the identity platform emulator, a real HTTP server on 127.0.0.1.
@Suite("Flows against the emulator", .serialized)
struct EmulatorFlowTests {
    func makeApp(_ emulator: IdentityEmulator, http: MSALRecordingHTTPClient, clock: any MSALClock = MSALSystemClock(),
                 storage: any MSALTokenCacheStorage = MSALInMemoryTokenCacheStorage(),
                 authority: String? = nil, known: [MSALAuthority] = []) throws -> MSALPublicClientApplication {
        let url = URL(string: authority ?? "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: url))
        config.knownAuthorities = known
        config.httpClient = http
        config.clock = clock
        config.cacheConfig.storage = storage
        return try MSALPublicClientApplication(configuration: config)
    }

    func interactive(_ scopes: [String]) -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
    }

    @Test func signInSilentHitRefreshAndGraph() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let clock = MSALTestClock()
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeApp(emulator, http: http, clock: clock, storage: storage)

        let result = try await app.acquireToken(with: interactive(["User.Read"]))
        #expect(result.account.username == emulator.username)
        #expect(result.scopes.map { $0.lowercased() }.contains("user.read"))
        #expect(result.tenantProfile.isHomeTenantProfile)

        // Graph /me accepts the token.
        let me = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/me")!
        let (status, _, body) = try await NoRedirectFetcher.fetch(me, headers: ["Authorization": result.authorizationHeader])
        #expect(status == 200)
        let profile = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(profile?["userPrincipalName"] as? String == emulator.username)

        // A silent call with a valid token makes no request at all.
        http.reset()
        let hit = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(hit.accessToken == result.accessToken)
        #expect(http.paths.isEmpty)

        // After expiry: one refresh; the rotated refresh token is stored and works again later.
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        let refreshed = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(refreshed.accessToken != result.accessToken)
        #expect(http.tokenRequests == 1)
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        let again = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(again.accessToken != refreshed.accessToken)
        #expect(http.tokenRequests == 2)

        // Accounts and sign-out from the cache.
        #expect(try app.allAccounts().map(\.username) == [emulator.username])
        #expect(try await app.signout(with: result.account, signoutParameters: MSALSignoutParameters()))
        #expect(try app.allAccounts().isEmpty)
    }

    @Test func revokedRefreshTokenMeansInteractionRequired() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let app = try makeApp(emulator, http: http)
        let result = try await app.acquireToken(with: interactive(["User.Read"]))
        await emulator.revokeAllRefreshTokens()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        parameters.forceRefresh = true
        await #expect { try await app.acquireTokenSilent(with: parameters) } throws: { error in
            let ns = error as NSError
            return ns.domain == MSALErrorDomain && ns.code == MSALError.interactionRequired.rawValue
                && ns.userInfo[MSALOAuthErrorKey] as? String == "invalid_grant"
        }
    }

    @Test func serverFaultsAreRetriedThenTyped() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let app = try makeApp(emulator, http: http)
        let result = try await app.acquireToken(with: interactive(["User.Read"]))
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        parameters.forceRefresh = true
        emulator.injectFault(FaultRule(endpoint: .token, status: 503, count: 2))
        http.reset()
        await #expect { try await app.acquireTokenSilent(with: parameters) } throws: { error in
            (error as? MSALErrorInfo)?.code == .serverError && (error as? MSALErrorInfo)?.httpStatusCode == 503
        }
        #expect(http.tokenRequests == 2)
        let recovered = try await app.acquireTokenSilent(with: parameters)
        #expect(!recovered.accessToken.isEmpty)
    }

    @Test func concurrentRefreshesShareOneRequest() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let clock = MSALTestClock()
        let app = try makeApp(emulator, http: http, clock: clock)
        let result = try await app.acquireToken(with: interactive(["User.Read"]))
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        emulator.injectFault(FaultRule(endpoint: .token, latencyMilliseconds: 300, count: 1))
        http.reset()
        let account = result.account
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account)).accessToken
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(http.tokenRequests == 1)
    }

    @Test func b2cSignInPerPolicy() async throws {
        let emulator = try await startEmulator(autoApprove: "carol@example.com")
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let policyURL = "\(emulator.httpURL.absoluteString)/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin"
        let authority = try MSALB2CAuthority(url: URL(string: policyURL)!)
        let app = try makeApp(emulator, http: http, authority: policyURL, known: [authority])
        let result = try await app.acquireToken(with: interactive(["https://fabrikamb2c.onmicrosoft.com/api/demo.read"]))
        #expect(result.account.homeAccountId?.objectId?.hasSuffix("-b2c_1_signupsignin") == true)
        http.reset()
        let silent = MSALSilentTokenParameters(scopes: ["https://fabrikamb2c.onmicrosoft.com/api/demo.read"], account: result.account)
        silent.authority = authority
        let hit = try await app.acquireTokenSilent(with: silent)
        #expect(hit.accessToken == result.accessToken)
        #expect(http.paths.isEmpty)
    }
}
