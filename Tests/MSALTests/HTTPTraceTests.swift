import Foundation
import MSALTestSupport
import Logging
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator

/// The redacted HTTP trace and the result metadata, over real flows against the emulator: sign-in (authorization
/// code with PKCE), cache hit, refresh after expiry, forced refresh, device code, and app tokens with a secret.
@Suite("HTTP trace and result metadata", .serialized)
struct HTTPTraceTests {
    struct Traced {
        let app: MSALPublicClientApplication
        let http: SecretCollectingHTTPClient
        let log: RecordingLogHandler
        let clock: MSALTestClock
    }

    func makeApp(_ emulator: IdentityEmulator, pii: Bool) throws -> Traced {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: url))
        let http = SecretCollectingHTTPClient()
        let (logger, log) = RecordingLogHandler.logger()
        let clock = MSALTestClock()
        config.httpClient = http
        config.clock = clock
        config.logger = logger
        config.loggerConfig = MSALLoggerConfig.verbose(pii: pii)
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return Traced(app: try MSALPublicClientApplication(configuration: config), http: http, log: log, clock: clock)
    }

    func interactive() -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
    }

    /// The trace lines of requests to `path` (a suffix), answered with `status`.
    static func lines(_ log: RecordingLogHandler, _ method: String, pathSuffix: String, status: Int) -> [String] {
        log.all.filter { line in
            guard let range = line.range(of: "HTTP \(method) ") else { return false }
            let rest = line[range.upperBound...]
            guard let arrow = rest.range(of: " -> ") else { return false }
            return rest[..<arrow.lowerBound].hasSuffix(pathSuffix) && rest[arrow.upperBound...].hasPrefix("\(status) (")
        }
    }

    @Test("Sign-in, cache hit, refresh and device code: the trace names every request and holds no secret",
          arguments: [false, true])
    func publicClientTrace(pii: Bool) async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let traced = try makeApp(emulator, pii: pii)
        let app = traced.app

        let signIn = try await app.acquireToken(with: interactive())
        #expect(signIn.metadata.tokenSource == .identityProvider)
        #expect(signIn.metadata.cacheRefreshReason == .notApplicable)
        #expect(signIn.metadata.durationInHTTP > 0)
        #expect(signIn.metadata.durationTotal >= signIn.metadata.durationInHTTP)

        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account)
        let hit = try await app.acquireTokenSilent(with: silent)
        #expect(hit.metadata.tokenSource == .cache)
        #expect(hit.metadata.cacheRefreshReason == .notApplicable)
        #expect(hit.metadata.durationInHTTP == 0)
        // The remembered hit (the hot path, answered before any collector is set up) says the same.
        let remembered = try await app.acquireTokenSilent(with: silent)
        #expect(remembered.metadata.tokenSource == .cache)
        #expect(remembered.metadata.cacheRefreshReason == .notApplicable)
        #expect(remembered.metadata.durationInHTTP == 0 && remembered.metadata.durationInCache == 0)

        emulator.clock.advance(by: 4000)
        traced.clock.advance(4000)
        let refreshed = try await app.acquireTokenSilent(with: silent)
        #expect(refreshed.accessToken != signIn.accessToken)
        #expect(refreshed.metadata.tokenSource == .identityProvider)
        #expect(refreshed.metadata.cacheRefreshReason == .expired)
        #expect(refreshed.metadata.durationInHTTP > 0)

        let force = MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account)
        force.forceRefresh = true
        let forced = try await app.acquireTokenSilent(with: force)
        #expect(forced.metadata.tokenSource == .identityProvider)
        #expect(forced.metadata.cacheRefreshReason == .forceRefresh)

        let device = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in }
        #expect(device.metadata.tokenSource == .identityProvider)

        // One line per request: method, scheme, host, port and path, status, duration, correlation id.
        let log = traced.log
        let host = emulator.httpURL.absoluteString
        let tokenLines = Self.lines(log, "POST", pathSuffix: "/oauth2/v2.0/token", status: 200)
        #expect(tokenLines.count >= 4, "\(log.text)")
        for result in [signIn, refreshed, forced, device] {
            let line = tokenLines.first { $0.contains("client-request-id=\(result.correlationId.uuidString)") }
            #expect(line?.contains("HTTP POST \(host)/") == true, "\(log.text)")
            #expect(line?.range(of: #" -> 200 \([0-9]+ ms\)"#, options: .regularExpression) != nil)
            #expect(line?.contains("id_token_claims=") == true)
            #expect(line?.contains("preferred_username") == true)
        }
        #expect(!Self.lines(log, "GET", pathSuffix: "/.well-known/openid-configuration", status: 200).isEmpty)
        #expect(!Self.lines(log, "POST", pathSuffix: "/oauth2/v2.0/devicecode", status: 200).isEmpty)
        #expect(log.text.contains("Cache: hit, access token expires in"))
        #expect(log.text.contains("refreshing (expired)"))
        #expect(log.text.contains("refreshing (force_refresh)"))
        #expect(!log.all.filter { $0.contains("HTTP ") }.joined().contains("?"), "no query in the trace")

        // Every secret that crossed the wire was collected, and none is in the trace.
        let secrets = traced.http.secrets
        for field in ["code", "code_verifier", "refresh_token", "device_code", "access_token", "id_token"] {
            #expect(!(secrets[field] ?? []).isEmpty, "no \(field) was seen on the wire")
        }
        for secret in traced.http.allSecrets where secret.count >= 8 {
            #expect(!log.text.contains(secret), "a secret is in the trace")
        }
        // The user's name only with personal data allowed.
        #expect(log.text.contains(emulator.username) == pii)
        if pii { #expect(log.text.contains("user=\(emulator.username)")) } else { #expect(log.text.contains("(PII masked)")) }
    }

    func makeDaemon(_ emulator: IdentityEmulator, secret: String, http: SecretCollectingHTTPClient,
                    logger: Logger) throws -> MSALConfidentialClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(clientId: EmulatorConfiguration.daemonClientId,
                                                             clientCredential: .secret(secret),
                                                             authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.logger = logger
        config.loggerConfig = MSALLoggerConfig.verbose(pii: false)
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return try MSALConfidentialClientApplication(configuration: config)
    }

    @Test("App tokens with a client secret: metadata, and a trace without the secret or the token")
    func appTokenTrace() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = SecretCollectingHTTPClient()
        let (logger, log) = RecordingLogHandler.logger()
        let app = try makeDaemon(emulator, secret: "daemon-secret", http: http, logger: logger)
        let scopes = ["https://graph.microsoft.com/.default"]

        let first = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
        #expect(first.metadata.tokenSource == .identityProvider)
        #expect(first.metadata.cacheRefreshReason == .noCachedAccessToken)
        #expect(first.metadata.durationInHTTP > 0)
        let second = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
        #expect(second.metadata.tokenSource == .cache)
        #expect(second.metadata.cacheRefreshReason == .notApplicable)
        let forceParameters = MSALClientCredentialParameters(scopes: scopes)
        forceParameters.forceRefresh = true
        let forced = try await app.acquireTokenForClient(with: forceParameters)
        #expect(forced.metadata.tokenSource == .identityProvider)
        #expect(forced.metadata.cacheRefreshReason == .forceRefresh)

        let line = Self.lines(log, "POST", pathSuffix: "/oauth2/v2.0/token", status: 200)
            .first { $0.contains("client-request-id=\(first.correlationId.uuidString)") }
        #expect(line != nil, "\(log.text)")
        #expect(http.secrets["client_secret"] == ["daemon-secret"])
        for secret in http.allSecrets where secret.count >= 8 {
            #expect(!log.text.contains(secret), "a secret is in the trace")
        }
    }

    @Test("Error answers: the trace has the OAuth error and AADSTS codes; a 5xx is an HTTP status failure")
    func errorTrace() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let (logger, log) = RecordingLogHandler.logger()
        let wrong = try makeDaemon(emulator, secret: "not-the-right-secret", http: SecretCollectingHTTPClient(), logger: logger)
        let scopes = ["https://graph.microsoft.com/.default"]
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await wrong.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
        }
        #expect(error?.oauthError == "invalid_client")
        #expect(error?.networkErrorKind == nil, "an OAuth error is not a network failure")
        let line = Self.lines(log, "POST", pathSuffix: "/oauth2/v2.0/token", status: 401).first
            ?? Self.lines(log, "POST", pathSuffix: "/oauth2/v2.0/token", status: 400).first
        #expect(line?.contains("error=invalid_client") == true, "\(log.text)")
        #expect(line?.contains("codes=AADSTS7000215") == true)
        #expect(!log.text.contains("not-the-right-secret"))

        let app = try makeDaemon(emulator, secret: "daemon-secret", http: SecretCollectingHTTPClient(), logger: logger)
        emulator.injectFault(FaultRule(endpoint: .token, status: 503, count: 10))
        let outage = await #expect(throws: MSALErrorInfo.self) {
            try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
        }
        #expect(outage?.networkErrorKind == .httpStatus)
        #expect(outage?.httpStatusCode == 503)
        #expect(outage?.errorUserInfo[MSALNetworkErrorKindKey] as? String == "http_status")
        #expect(!Self.lines(log, "POST", pathSuffix: "/oauth2/v2.0/token", status: 503).isEmpty)
    }

    @Test("A trace line never shows a query, user information or a body")
    func lineRedaction() throws {
        let id = UUID()
        let url = URL(string: "https://user:pw@login.example.com:8443/tenant/oauth2/v2.0/authorize?code=SECRET&login_hint=a%40b")!
        let request = MSALHTTPRequest(method: "post", url: url, headers: ["Client-Request-Id": id.uuidString],
                                      body: Data("client_secret=SECRET".utf8))
        let body = Data(#"{"error":"invalid_grant\u001b[2J","suberror":"bad_token","error_codes":[70000],"error_description":"AADSTS70000: user a@b SECRET"}"#.utf8)
        let line = HTTPTraceLine.answered(request, MSALHTTPResponse(statusCode: 400, headers: ["x-ms-request-id": "r-1"], body: body),
                                          elapsed: .milliseconds(12))
        #expect(line == "HTTP POST https://login.example.com:8443/tenant/oauth2/v2.0/authorize -> 400 (12 ms) "
            + "client-request-id=\(id.uuidString) x-ms-request-id=r-1 error=invalid_grant??2J suberror=bad_token codes=AADSTS70000")
        let failed = HTTPTraceLine.failed(request, URLError(.cannotFindHost, userInfo: [NSURLErrorFailingURLErrorKey: url]),
                                          elapsed: .milliseconds(3))
        #expect(failed == "HTTP POST https://login.example.com:8443/tenant/oauth2/v2.0/authorize failed after 3 ms: "
            + "dns_failure client-request-id=\(id.uuidString)")
        #expect(MSALErrorInfo.transport(URLError(.serverCertificateUntrusted), host: "h", correlationId: nil).networkErrorKind
            == .tlsTrustFailure)
    }
}
