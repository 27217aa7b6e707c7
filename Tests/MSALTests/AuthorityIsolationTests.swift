import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Routes each request to the provider of its cloud: by host, and instance discovery by the host of the
/// authorization endpoint it asks about (as the real discovery endpoint answers for every cloud).
final class MultiCloudHTTP: MSALHTTPClient, @unchecked Sendable {
    let providers: [MSALScriptedIdentityProvider]
    init(_ providers: [MSALScriptedIdentityProvider]) { self.providers = providers }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        var host = request.url.port.map { "\(request.url.host ?? ""):\($0)" } ?? (request.url.host ?? "")
        if request.url.path.hasSuffix("/discovery/instance"),
           let endpoint = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?
               .queryItems?.first(where: { $0.name == "authorization_endpoint" })?.value,
           let url = URL(string: endpoint), let endpointHost = url.host {
            host = url.port.map { "\(endpointHost):\($0)" } ?? endpointHost
        }
        guard let provider = providers.first(where: { $0.host == host.lowercased() }) else {
            return MSALHTTPResponse(statusCode: 404, body: Data(#"{"error":"not_found"}"#.utf8))
        }
        return try await provider.send(request)
    }
}

@Suite("Tokens stay within their authority's cloud")
struct AuthorityIsolationTests {
    let cloudA = MSALScriptedIdentityProvider(host: "login-a-\(UUID().uuidString.prefix(8).lowercased()).example.com")
    let cloudB = MSALScriptedIdentityProvider(host: "login-b-\(UUID().uuidString.prefix(8).lowercased()).example.net")

    private func app(_ storage: MSALInMemoryTokenCacheStorage, clock: MSALTestClock = MSALTestClock()) throws -> MSALPublicClientApplication {
        try makeFakeApp(cloudA, clock: clock, storage: storage) { config in
            config.httpClient = MultiCloudHTTP([cloudA, cloudB])
        }
        // Both providers issue tokens on the application's clock.
    }

    private func authorityB() throws -> MSALAuthority {
        try MSALAADAuthority(url: URL(string: "https://\(cloudB.host)/\(cloudA.tenant)")!)
    }

    @Test("A silent request naming another cloud's authority never gets this cloud's cached token")
    func cachedTokenDoesNotCrossClouds() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try app(storage)
        cloudB.clock = cloudA.clock
        let signedIn = try await app.acquireToken(with: interactiveParameters(cloudA))
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.authority = try authorityB()
        let error = await #expect(throws: MSALErrorInfo.self) { try await app.acquireTokenSilent(with: parameters) }
        #expect(error?.code == .interactionRequired)
        // The own cloud still answers from the cache.
        let own = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        #expect(own.accessToken == signedIn.accessToken)
    }

    @Test("A forced refresh against another cloud never sends this cloud's refresh token there")
    func refreshTokenDoesNotCrossClouds() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try app(storage)
        cloudB.clock = cloudA.clock
        let signedIn = try await app.acquireToken(with: interactiveParameters(cloudA))
        cloudB.resetLog()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.authority = try authorityB()
        parameters.forceRefresh = true
        let error = await #expect(throws: MSALErrorInfo.self) { try await app.acquireTokenSilent(with: parameters) }
        #expect(error?.code == .interactionRequired)
        #expect(cloudB.tokenRequests.isEmpty)
    }

    @Test("Aliases of the same Microsoft cloud still share tokens")
    func sameCloudAliasesShare() async throws {
        let provider = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        let app = try makeFakeApp(provider)
        let signedIn = try await app.acquireToken(with: interactiveParameters(provider))
        provider.resetLog()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.authority = try MSALAADAuthority(url: URL(string: "https://login.windows.net/\(provider.tenant)")!)
        let silent = try await app.acquireTokenSilent(with: parameters)
        #expect(silent.accessToken == signedIn.accessToken)
        #expect(provider.tokenRequests.isEmpty)
    }

    @Test("A loopback authority that claims the public cloud in discovery is cached under its own host")
    func loopbackCannotPlantPublicCloudTokens() async throws {
        let port = Int.random(in: 20_000...60_000)
        let local = MSALScriptedIdentityProvider(host: "127.0.0.1:\(port)")
        local.discoveryClaimsCache = "login.microsoftonline.com"
        let storage = MSALInMemoryTokenCacheStorage()
        let localApp = try makeFakeApp(local, storage: storage)
        let planted = try await localApp.acquireToken(with: interactiveParameters(local))
        #expect(planted.account.environment == "127.0.0.1")

        // Every entry the loopback sign-in wrote names the loopback host (without its port, as MSAL for Python does).
        let document = String(decoding: try #require(try storage.read()?.data), as: UTF8.self)
        #expect(!document.contains("login.microsoftonline.com"))
        #expect(document.contains("\"environment\": \"127.0.0.1\"") || document.contains("\"environment\":\"127.0.0.1\""))

        // An application of the real cloud on the same cache finds nothing of it.
        let real = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        let realApp = try makeFakeApp(real, storage: storage)
        let accounts = try realApp.allAccounts()
        #expect(accounts.allSatisfy { $0.environment != "login.microsoftonline.com" })
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: planted.account)
        parameters.authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(local.tenant)")!)
        let error = await #expect(throws: MSALErrorInfo.self) { try await realApp.acquireTokenSilent(with: parameters) }
        #expect(error?.code == .interactionRequired)
        #expect(real.tokenRequests.isEmpty)
        // And the process-wide alias knowledge of the public cloud was not touched.
        let aliases = await localApp.engine.resolver.aliases(forEnvironment: "login.microsoftonline.com")
        #expect(!aliases.contains { $0.hasPrefix("127.0.0.1") })
    }
}
