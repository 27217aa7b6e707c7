import Foundation
import MSALTestSupport
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
                 http: MSALRecordingHTTPClient, clock: any MSALClock = MSALSystemClock(),
                 storage: any MSALTokenCacheStorage = MSALInMemoryTokenCacheStorage(),
                 popKeyStore: (any MSALPoPKeyStore)? = nil) throws
        -> MSALConfidentialClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: credential,
                                                             authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.clock = clock
        config.cacheConfig.storage = storage
        config.popKeyStore = popKeyStore
        return try MSALConfidentialClientApplication(configuration: config)
    }

    /// The middle-tier API's scope.
    static let middleTierScope = "api://\(EmulatorConfiguration.middleTierClientId)/access_as_user"

    /// The emulator's user signed in to the client app for the middle-tier API's scope: the client, and the token the
    /// middle tier is called with.
    static func signInForTheMiddleTier(_ emulator: IdentityEmulator) async throws -> (MSALPublicClientApplication, MSALResult) {
        let publicConfig = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "http://localhost",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        publicConfig.httpClient = MSALRecordingHTTPClient()
        publicConfig.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let client = try MSALPublicClientApplication(configuration: publicConfig)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        let user = try await client.acquireToken(with: MSALInteractiveTokenParameters(scopes: [middleTierScope],
                                                                                      webviewParameters: webview))
        return (client, user)
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
        let http = MSALRecordingHTTPClient()
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
                              credential: .secret("not-the-secret"), http: MSALRecordingHTTPClient())
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
        let http = MSALRecordingHTTPClient()
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
                              credential: .certificate(unregistered), http: MSALRecordingHTTPClient())
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graphDefault)) } throws: { error in
            (error as? MSALErrorInfo)?.oauthError == "invalid_client"
        }
    }

    @Test func theMiddleTierCallsGraphOnBehalfOfTheUser() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        // The user signs in to the client app for the middle-tier API's scope.
        let (_, user) = try await Self.signInForTheMiddleTier(emulator)

        // The middle tier exchanges it for a Graph token.
        let http = MSALRecordingHTTPClient()
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

    @Test func theMiddleTierValidatesTheIncomingToken() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let (_, user) = try await Self.signInForTheMiddleTier(emulator)
        let api = "api://\(EmulatorConfiguration.middleTierClientId)"
        let middle = try makeApp(emulator, clientId: EmulatorConfiguration.middleTierClientId,
                                 credential: .secret("middle-tier-secret"), http: MSALRecordingHTTPClient())
        let audiences = [EmulatorConfiguration.middleTierClientId, api]
        let valid = try await middle.validateAccessToken(user.accessToken, audiences: audiences,
                                                         requiredScopes: ["access_as_user"])
        #expect(valid.username == emulator.username)
        #expect(valid.scopes.contains("access_as_user"))
        #expect(!valid.isAppToken)
        func refused(_ token: String, audiences: [String] = audiences, scopes: [String] = ["access_as_user"],
                     because reason: String) async {
            await #expect { try await middle.validateAccessToken(token, audiences: audiences, requiredScopes: scopes) } throws: { error in
                let info = error as? MSALErrorInfo
                return info?.internalCode == .internalErrorInvalidParameter && info?.errorDescription.contains(reason) == true
                    && !(info?.errorDescription.contains(token) ?? true)
            }
        }
        await refused(user.accessToken, scopes: ["Files.ReadWrite"], because: "does not carry the scope")
        await refused(user.accessToken, audiences: ["api://someone-else"], because: "another audience")
        let parts = user.accessToken.split(separator: ".")
        await refused("\(parts[0]).\(parts[1]).\(String(parts[2].reversed()))", because: "signature")
        await refused("not-a-jwt", because: "not a JWT")
        emulator.clock.advance(by: 7200)
        let clock = MSALTestClock(Date().addingTimeInterval(7200))
        let later = try makeApp(emulator, clientId: EmulatorConfiguration.middleTierClientId,
                                credential: .secret("middle-tier-secret"), http: MSALRecordingHTTPClient(), clock: clock)
        await #expect { try await later.validateAccessToken(user.accessToken, audiences: audiences) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("expired") == true
        }
    }

    @Test func anAppTokenIsNoAssertionForOnBehalfOf() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let daemon = try makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                                 credential: .secret("daemon-secret"), http: MSALRecordingHTTPClient())
        let appToken = try await daemon.acquireTokenForClient(with: MSALClientCredentialParameters(
            scopes: ["api://\(EmulatorConfiguration.middleTierClientId)/.default"]))
        let middle = try makeApp(emulator, clientId: EmulatorConfiguration.middleTierClientId,
                                 credential: .secret("middle-tier-secret"), http: MSALRecordingHTTPClient())
        await #expect {
            try await middle.acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(
                scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: appToken.accessToken))
        } throws: { error in
            // Entra's answer: AADSTS7000114, an application may not make on-behalf-of calls as itself.
            (error as? MSALErrorInfo)?.oauthError == "unauthorized_client"
        }
    }
}

/// A web app's sign-in (authorization code with PKCE, redeemed with the app's secret) against the emulator.
@Suite("Web app sign-in against the emulator", .serialized)
struct WebAppEmulatorTests {
    func makeWebApp(_ emulator: IdentityEmulator, http: MSALRecordingHTTPClient, clock: any MSALClock = MSALSystemClock())
        throws -> MSALConfidentialClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(
            clientId: EmulatorConfiguration.webAppClientId, clientCredential: .secret("emulator-secret"),
            authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.clock = clock
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return try MSALConfidentialClientApplication(configuration: config)
    }

    /// What the browser would bring back: the emulator approves at once and redirects with the code.
    func browse(_ url: URL) async throws -> [String: String] {
        let (status, headers, _) = try await NoRedirectFetcher.fetch(url)
        #expect((300..<400).contains(status))
        let location = try #require(headers["location"].flatMap(URL.init(string:)))
        return Dictionary((URLComponents(url: location, resolvingAgainstBaseURL: false)?.queryItems ?? [])
            .map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    @Test func signInSilentAndSignOut() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let clock = MSALTestClock()
        let app = try makeWebApp(emulator, http: http, clock: clock)
        let flow = try await app.startAuthorizationCodeFlow(with: MSALAuthorizationCodeParameters(
            scopes: ["User.Read"], redirectUri: "http://localhost/callback"))
        let query = URLComponents(url: flow.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains { $0.name == "code_challenge_method" && $0.value == "S256" })
        #expect(query.contains { $0.name == "state" && $0.value == flow.state })
        #expect(query.contains { $0.name == "nonce" && $0.value == flow.nonce })
        #expect(!flow.authorizationURL.absoluteString.contains(flow.codeVerifier))
        #expect(!"\(flow)".contains(flow.codeVerifier))
        // The flow survives a round trip through the session store.
        let stored = try JSONDecoder().decode(MSALAuthorizationCodeFlow.self, from: JSONEncoder().encode(flow))

        let response = try await browse(flow.authorizationURL)
        // A response with another state is refused before any request.
        var forged = response
        forged["state"] = "someone-else"
        await #expect { try await app.acquireToken(byAuthorizationCodeFlow: stored, response: forged) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidState
        }
        #expect(http.tokenRequests == 0)
        let result = try await app.acquireToken(byAuthorizationCodeFlow: stored, response: response)
        #expect(result.account.username == emulator.username)
        let body = String(decoding: http.requests.last { $0.url.path.hasSuffix("/token") }?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("client_secret=emulator-secret"))
        #expect(body.contains("code_verifier="))
        // The same code again: the provider refuses it.
        await #expect(throws: MSALErrorInfo.self) { try await app.acquireToken(byAuthorizationCodeFlow: stored, response: response) }

        // Later requests for the signed-in user are silent; after expiry the refresh carries the app's secret.
        let identifier = try #require(result.account.identifier)
        let found = try app.account(forIdentifier: identifier)
        let account = try #require(found)
        http.reset()
        #expect(try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            .accessToken == result.accessToken)
        #expect(http.tokenRequests == 0)
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        let refreshed = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(refreshed.accessToken != result.accessToken)
        let refreshBody = String(decoding: http.requests.last { $0.url.path.hasSuffix("/token") }?.body ?? Data(), as: UTF8.self)
        #expect(refreshBody.contains("grant_type=refresh_token") && refreshBody.contains("client_secret="))

        // Sign-out: the account leaves the cache, and the browser goes to the end-session URL.
        let endSession = try await app.signOut(account, postLogoutRedirectUri: "http://localhost/")
        #expect(endSession?.absoluteString.contains("post_logout_redirect_uri=") == true)
        #expect(try app.allAccounts().isEmpty)
    }

    @Test func anInsecureRedirectURIIsRefused() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try makeWebApp(emulator, http: MSALRecordingHTTPClient())
        await #expect { try await app.startAuthorizationCodeFlow(with: MSALAuthorizationCodeParameters(
            scopes: ["User.Read"], redirectUri: "http://example.com/callback")) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidRedirectURI
        }
    }
}
