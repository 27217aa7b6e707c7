import Foundation
import MSAL
import MSALEmulator
import MSALTesting
import Testing
@testable import MSALCore

/// Confidential clients against the identity platform emulator (a real HTTP server on 127.0.0.1): client
/// credentials with a secret and with a certificate, Graph with the app token, and on-behalf-of.
@Suite("Confidential clients against the emulator", .serialized)
struct ConfidentialEmulatorTests {
    func makeApp(_ emulator: IdentityEmulator, clientId: String, credential: MSALClientCredential,
                 http: CountingHTTPClient, clock: any MSALClock = MSALSystemClock(),
                 storage: any MSALTokenCacheStorage = MSALInMemoryTokenCacheStorage()) throws
        -> MSALConfidentialClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: credential,
                                                             authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.clock = clock
        config.cacheConfig.storage = storage
        return try MSALConfidentialClientApplication(configuration: config)
    }

    static let graphDefault = ["https://graph.microsoft.com/.default"]

    func users(_ emulator: IdentityEmulator, _ header: String) async throws -> (Int, [String]) {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/users")!
        let (status, _, body) = try await NoRedirectFetcher.fetch(url, headers: ["Authorization": header])
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let names = (object?["value"] as? [[String: Any]])?.compactMap { $0["userPrincipalName"] as? String } ?? []
        return (status, names)
    }

    @Test func theDaemonGetsAnAppTokenWithItsSecretAndListsUsers() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = CountingHTTPClient()
        let app = try makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                              credential: .secret("daemon-secret"), http: http)
        let token = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graphDefault))
        #expect(token.tokenSource == .identityProvider)
        #expect(token.tenantId == EmulatorConfiguration.demoTenantId)
        let (status, names) = try await users(emulator, token.authorizationHeader)
        #expect(status == 200)
        #expect(names.contains(emulator.username))
        http.reset()
        #expect(try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graphDefault))
            .tokenSource == .cache)
        #expect(http.paths.isEmpty)
    }

    @Test func aWrongSecretIsInvalidClient() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                              credential: .secret("not-the-secret"), http: CountingHTTPClient())
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graphDefault)) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.oauthError == "invalid_client" && info?.stsErrorCodes == ["7000215"]
                && !(info?.errorDescription.contains("not-the-secret") ?? true)
        }
    }

    @Test(arguments: [true, false])
    func aRegisteredCertificateSignsIn(sendChain: Bool) async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let made = try TestCertificates.make()
        _ = try await emulator.registerCertificate(made.certificatePEM, clientId: EmulatorConfiguration.daemonClientId)
        let credential = try MSALCertificateCredential(pem: made.bundle, sendCertificateChain: sendChain)
        let http = CountingHTTPClient()
        let app = try makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                              credential: .certificate(credential), http: http)
        let token = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graphDefault))
        #expect(try await users(emulator, token.authorizationHeader).0 == 200)
        // Each request carries a fresh assertion: a forced second request is not a replay.
        let forced = MSALClientCredentialParameters(scopes: Self.graphDefault)
        forced.forceRefresh = true
        #expect(try await app.acquireTokenForClient(with: forced).accessToken != token.accessToken)
    }

    @Test func aCertificateTheAppDoesNotHaveIsInvalidClient() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let unregistered = try MSALCertificateCredential(pem: try TestCertificates.make().bundle)
        let app = try makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                              credential: .certificate(unregistered), http: CountingHTTPClient())
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graphDefault)) } throws: { error in
            (error as? MSALErrorInfo)?.oauthError == "invalid_client"
        }
    }

    @Test func theMiddleTierCallsGraphOnBehalfOfTheUser() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let clock = TestClock()
        // The user signs in to the client app for the middle-tier API's scope.
        let publicConfig = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "http://localhost",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        publicConfig.httpClient = CountingHTTPClient()
        publicConfig.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let client = try MSALPublicClientApplication(configuration: publicConfig)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        let apiScope = "api://\(EmulatorConfiguration.middleTierClientId)/access_as_user"
        let user = try await client.acquireToken(with: MSALInteractiveTokenParameters(scopes: [apiScope], webviewParameters: webview))

        // The middle tier exchanges it for a Graph token.
        let http = CountingHTTPClient()
        let middle = try makeApp(emulator, clientId: EmulatorConfiguration.middleTierClientId,
                                 credential: .secret("middle-tier-secret"), http: http, clock: clock)
        let parameters = MSALOnBehalfOfParameters(scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: user.accessToken)
        let graph = try await middle.acquireTokenOnBehalfOf(with: parameters)
        #expect(graph.account.username == emulator.username)
        let me = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/me")!
        let (status, _, body) = try await NoRedirectFetcher.fetch(me, headers: ["Authorization": graph.authorizationHeader])
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains(emulator.username))
        #expect(http.tokenRequests == 1)

        // The same incoming token again: from the cache, no request.
        http.reset()
        #expect(try await middle.acquireTokenOnBehalfOf(with: parameters).accessToken == graph.accessToken)
        #expect(http.tokenRequests == 0)

        // Expired: refreshed with the refresh token obtained for that incoming token.
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        let refreshed = try await middle.acquireTokenOnBehalfOf(with: parameters)
        #expect(refreshed.accessToken != graph.accessToken)
        #expect(http.tokenRequests == 1)
        let lastBody = http.requests.last { $0.url.path.hasSuffix("/oauth2/v2.0/token") }?.body ?? Data()
        #expect(String(decoding: lastBody, as: UTF8.self).contains("grant_type=refresh_token"))
    }

    @Test func anAppTokenIsNoAssertionForOnBehalfOf() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let daemon = try makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                                 credential: .secret("daemon-secret"), http: CountingHTTPClient())
        let appToken = try await daemon.acquireTokenForClient(with: MSALClientCredentialParameters(
            scopes: ["api://\(EmulatorConfiguration.middleTierClientId)/.default"]))
        let middle = try makeApp(emulator, clientId: EmulatorConfiguration.middleTierClientId,
                                 credential: .secret("middle-tier-secret"), http: CountingHTTPClient())
        await #expect {
            try await middle.acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(
                scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: appToken.accessToken))
        } throws: { error in
            // Entra's answer: AADSTS7000114, an application may not make on-behalf-of calls as itself.
            (error as? MSALErrorInfo)?.oauthError == "unauthorized_client"
        }
    }
}
