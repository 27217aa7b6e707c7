import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Authority resolution")
struct AuthorityResolverTests {
    let correlationId = UUID()

    private func resolve(_ resolver: AuthorityResolver, _ url: String, known: [String] = [],
                         http: MSALRecordingHTTPClient) async throws -> ResolvedAuthority {
        try await resolver.resolve(.test(url), knownAuthorities: known.map { .test($0) }, http: http,
                                   correlationId: correlationId, timeout: 30)
    }

    @Test("AAD: instance discovery, then OpenID metadata")
    func aad() async throws {
        let http = MSALRecordingHTTPClient(FakeEntra.server())
        let resolved = try await resolve(AuthorityResolver(), "https://login.microsoftonline.com/common", http: http)

        #expect(http.requests.count == 2)
        let discovery = try #require(http.requests.first)
        #expect(discovery.method == "GET")
        #expect(discovery.url.host == "login.microsoftonline.com")
        #expect(discovery.url.path == "/common/discovery/instance")
        let query = URLComponents(url: discovery.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "api-version" }?.value == "1.1")
        #expect(query.first { $0.name == "authorization_endpoint" }?.value
                == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        #expect(http.requests[1].url.absoluteString
                == "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration")
        for request in http.requests {
            #expect(request.headers["client-request-id"] == correlationId.uuidString)
            #expect(request.headers["return-client-request-id"] == "true")
            #expect(request.timeout == 30)
        }

        #expect(resolved.metadata.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(resolved.metadata.authorizationEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        #expect(resolved.metadata.deviceAuthorizationEndpoint?.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode")
        #expect(resolved.metadata.endSessionEndpoint != nil && resolved.metadata.jwksURI != nil)
        #expect(resolved.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
        #expect(resolved.cacheEnvironment == "login.windows.net")
        #expect(resolved.preferredNetwork == "login.microsoftonline.com")
        #expect(Set(resolved.aliases) == Set(FakeEntra.publicCloudAliases))
        #expect(resolved.descriptor == .test("https://login.microsoftonline.com/common"))
    }

    @Test("Aliases are remembered by environment; a second tenant on the host skips discovery")
    func aliasesAndSecondTenant() async throws {
        let resolver = AuthorityResolver()
        let http = MSALRecordingHTTPClient(FakeEntra.server())
        #expect(await resolver.aliases(forEnvironment: "login.windows.net") == ["login.windows.net"])
        _ = try await resolve(resolver, "https://login.windows.net/organizations", http: http)
        #expect(Set(await resolver.aliases(forEnvironment: "login.microsoftonline.com")) == Set(FakeEntra.publicCloudAliases))
        #expect(await resolver.aliases(forEnvironment: "LOGIN.chinacloudapi.cn").contains("login.partner.microsoftonline.cn"))
        #expect(await resolver.aliases(forEnvironment: "example.com") == ["example.com"])

        let tenant = try await resolve(resolver, "https://login.microsoftonline.com/contoso.onmicrosoft.com", http: http)
        #expect(http.count(pathSuffix: "/discovery/instance") == 1)
        #expect(http.count(pathSuffix: "/openid-configuration") == 2)
        #expect(tenant.cacheEnvironment == "login.windows.net")
        #expect(tenant.issuer == "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0")
    }

    @Test("Concurrent resolves share one fetch; later resolves are answered from memory")
    func singleFlight() async throws {
        let resolver = AuthorityResolver()
        // The fetch is held until all ten callers wait for it.
        let gate = Gate()
        let server = FakeEntra.server()
        let http = MSALRecordingHTTPClient { request in
            try await gate.pass()
            return try await server(request)
        }
        let results = try await withThrowingTaskGroup(of: ResolvedAuthority.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await resolver.resolve(.test("https://login.microsoftonline.com/common"), knownAuthorities: [],
                                               http: http, correlationId: UUID(), timeout: 30)
                }
            }
            try await gate.waitForArrivals(1)
            try await eventually("ten callers waiting for one fetch") { await resolver.callers == 10 }
            gate.openGate()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 10 && Set(results).count == 1)
        #expect(http.count(pathSuffix: "/discovery/instance") == 1)
        #expect(http.count(pathSuffix: "/openid-configuration") == 1)
        _ = try await resolve(resolver, "https://login.microsoftonline.com/common/", http: http)
        #expect(http.requests.count == 2)
    }

    @Test("invalid_instance fails authority validation; a non-Microsoft host asks the public cloud")
    func invalidInstance() async throws {
        let http = MSALRecordingHTTPClient { _ in FakeEntra.invalidInstance }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(AuthorityResolver(), "https://login.contoso.com/common", http: http)
        }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorFailedAuthorityValidation)
        #expect(error?.oauthError == "invalid_instance")
        #expect(error?.correlationId == correlationId)
        #expect(http.requests.count == 1)
        let url = try #require(http.requests.first?.url)
        #expect(url.host == "login.microsoftonline.com")
        #expect(url.query?.contains("login.contoso.com") == true)
    }

    @Test("A known authority skips validation and works without discovery", arguments: [
        FakeEntra.invalidInstance, FakeEntra.json(["error": "server"], status: 503),
    ])
    func knownAuthority(_ discoveryAnswer: MSALHTTPResponse) async throws {
        let server = FakeEntra.server()
        let http = MSALRecordingHTTPClient { request in
            request.url.path.hasSuffix("/discovery/instance") ? discoveryAnswer : try await server(request)
        }
        let resolved = try await resolve(AuthorityResolver(), "https://login.contoso.com/tenant-1",
                                         known: ["https://login.contoso.com/other-tenant"], http: http)
        #expect(resolved.aliases == ["login.contoso.com"])
        #expect(resolved.cacheEnvironment == "login.contoso.com")
        #expect(resolved.preferredNetwork == "login.contoso.com")
        #expect(resolved.metadata.tokenEndpoint.absoluteString == "https://login.contoso.com/tenant-1/oauth2/v2.0/token")
    }

    @Test("A known authority still gets aliases when discovery works")
    func knownAuthorityWithDiscovery() async throws {
        let http = MSALRecordingHTTPClient(FakeEntra.server())
        let resolved = try await resolve(AuthorityResolver(), "https://login.microsoftonline.com/common",
                                         known: ["https://login.microsoftonline.com/common"], http: http)
        #expect(resolved.cacheEnvironment == "login.windows.net")
    }

    @Test("B2C must be a known authority")
    func b2cRequiresKnown() async throws {
        let http = MSALRecordingHTTPClient(FakeEntra.server())
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(AuthorityResolver(), "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", http: http)
        }
        #expect(error?.internalCode == .internalErrorFailedAuthorityValidation)
        #expect(error?.errorDescription.contains("knownAuthorities") == true)
        #expect(http.requests.isEmpty)
        // An AAD authority on the same host does not make it known.
        await #expect(throws: MSALErrorInfo.self) {
            try await AuthorityResolver().resolve(
                .test("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin"),
                knownAuthorities: [.test("https://contoso.b2clogin.com/common", as: .aad)],
                http: http, correlationId: correlationId, timeout: 30)
        }
    }

    @Test("B2C and CIAM metadata URLs; no instance discovery", arguments: [
        ("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
         "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration"),
        ("https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin",
         "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration"),
        ("https://contoso.ciamlogin.com",
         "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration"),
    ])
    func b2cAndCiam(_ authority: String, _ metadataURL: String) async throws {
        let http = MSALRecordingHTTPClient(FakeEntra.server())
        let descriptor = AuthorityDescriptor.test(authority)
        let known = descriptor.kind == .b2c ? ["https://contoso.b2clogin.com/tfp/x/B2C_1_other"] : []
        let resolved = try await resolve(AuthorityResolver(), authority, known: known, http: http)
        #expect(http.requests.map(\.url.absoluteString) == [metadataURL])
        #expect(resolved.aliases == [descriptor.host])
        #expect(resolved.cacheEnvironment == descriptor.host)
    }

    @Test("HTTP 5xx is a server error and is not cached")
    func serverErrorNotCached() async throws {
        let resolver = AuthorityResolver()
        let http = MSALRecordingHTTPClient { request in
            request.url.path.hasSuffix("/openid-configuration") ? FakeEntra.json(["error": "temporarily_unavailable"], status: 503)
                : FakeEntra.discovery()
        }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(resolver, "https://login.microsoftonline.com/common", http: http)
        }
        #expect(error?.code == .serverError)
        #expect(error?.httpStatusCode == 503)
        #expect(error?.correlationId == correlationId)

        http.setHandler(FakeEntra.server())
        let resolved = try await resolve(resolver, "https://login.microsoftonline.com/common", http: http)
        #expect(resolved.cacheEnvironment == "login.windows.net")
        #expect(http.count(pathSuffix: "/openid-configuration") == 2)
        #expect(http.count(pathSuffix: "/discovery/instance") == 1)
    }

    @Test("A discovery 5xx on an unknown authority is a server error")
    func discovery5xx() async throws {
        let http = MSALRecordingHTTPClient { _ in FakeEntra.json([:], status: 500) }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(AuthorityResolver(), "https://login.microsoftonline.com/common", http: http)
        }
        #expect(error?.code == .serverError)
        #expect(error?.httpStatusCode == 500)
    }

    @Test("Transport failures are server errors with the underlying error")
    func transportFailure() async throws {
        struct Offline: Error {}
        let http = MSALRecordingHTTPClient { _ in throw Offline() }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(AuthorityResolver(), "https://login.microsoftonline.com/common", http: http)
        }
        #expect(error?.code == .serverError)
        #expect(error?.underlyingError is Offline)
    }

    @Test("A 4xx OpenID configuration answer fails validation")
    func metadata4xx() async throws {
        let http = MSALRecordingHTTPClient { request in
            request.url.path.hasSuffix("/openid-configuration")
                ? FakeEntra.json(["error": "invalid_tenant", "error_description": "AADSTS90002: Tenant not found."], status: 400)
                : FakeEntra.discovery()
        }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(AuthorityResolver(), "https://login.microsoftonline.com/nope.example", http: http)
        }
        #expect(error?.internalCode == .internalErrorFailedAuthorityValidation)
        #expect(error?.oauthError == "invalid_tenant")
        #expect(error?.httpStatusCode == 400)
    }

    @Test("Loopback authorities use plain http and serve discovery themselves")
    func loopback() async throws {
        let http = MSALRecordingHTTPClient(FakeEntra.server())
        let resolved = try await resolve(AuthorityResolver(), "http://127.0.0.1:8443/tenant-1", http: http)
        #expect(http.requests.map(\.url.host) == ["127.0.0.1", "127.0.0.1"])
        #expect(http.requests.first?.url.port == 8443)
        #expect(http.requests.first?.url.scheme == "http")
        #expect(resolved.metadata.tokenEndpoint.absoluteString == "http://127.0.0.1:8443/tenant-1/oauth2/v2.0/token")
        #expect(resolved.aliases == ["127.0.0.1"])
    }

    @Test("Unusable metadata is an invalid response", arguments: [
        ["token_endpoint": "http://login.microsoftonline.com/common/oauth2/v2.0/token"],
        ["token_endpoint": ""],
        ["authorization_endpoint": "not a url"],
        ["issuer": ""],
    ])
    func badMetadata(_ overrides: [String: String]) async throws {
        let http = MSALRecordingHTTPClient { request in
            guard request.url.path.hasSuffix("/openid-configuration") else { return FakeEntra.discovery() }
            return FakeEntra.openID(base: "https://login.microsoftonline.com/common",
                                    issuer: "https://login.microsoftonline.com/{tenantid}/v2.0", extra: overrides)
        }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await resolve(AuthorityResolver(), "https://login.microsoftonline.com/common", http: http)
        }
        #expect(error?.internalCode == .internalErrorInvalidResponse)
    }

    @Test("Non-loopback http authorities are rejected before any request")
    func httpRejected() {
        #expect(throws: MSALErrorInfo.self) {
            try AuthorityDescriptor.parse(URL(string: "http://login.microsoftonline.com/common")!, as: .aad)
        }
    }
}
