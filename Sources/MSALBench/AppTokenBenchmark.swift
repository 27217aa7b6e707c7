import ArgumentParser
import Foundation
import MSAL
import MSALTesting

/// `msal-bench client`: acquireTokenForClient cache hits on a large app-token cache.
struct AppTokenBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Times acquireTokenForClient cache hits on a cache of T tenants x R resources.",
        discussion: """
            Writes a unified cache of T x R app tokens (the format MSAL for Python keeps them in), opens it with a \
            confidential client application on an in-process identity provider, resolves every tenant once, then \
            times K app-token requests answered from the cache (random tenant and resource). Then N concurrent \
            requests for one expired token, which must send one request. Prints one JSON object.

            Example: swift run --traits Tools -c release msal-bench client --tenants 10000 --resources 10 --iterations 200000 --json
            """)

    @Option(help: "Tenants.") var tenants = 10_000
    @Option(help: "Resources (/.default scopes) per tenant.") var resources = 10
    @Option(help: "Calls to time.") var iterations = 200_000
    @Option(help: "Concurrent requests for one expired token.") var concurrent = 100
    @Option(help: "Write the cache to this file (to time MSAL for Python on the same data).") var writeCache: String?
    @Flag(help: "Print one JSON object.") var json = false

    static let host = "login.microsoftonline.com"
    static let clientId = "6c4f1a7e-3b2d-4e8f-9a1c-5d7e9f0b2c4a"

    static func tenant(_ index: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", index, index) }
    static func scope(_ index: Int) -> String { "https://api\(index).example.com/.default" }

    func validate() throws {
        guard tenants > 0, resources > 0, iterations > 0, concurrent > 0 else {
            throw ValidationError("--tenants, --resources, --iterations and --concurrent must be positive.")
        }
    }

    func run() async throws {
        let cacheData = Self.cacheDocument(tenants: tenants, resources: resources)
        if let writeCache { try cacheData.write(to: URL(fileURLWithPath: writeCache)) }
        let provider = MSALScriptedIdentityProvider(host: Self.host, tenant: Self.tenant(0), clientId: Self.clientId)
        provider.recordsRequests = false
        let storage = MSALInMemoryTokenCacheStorage(data: cacheData)
        let app = try Self.makeApp(provider: provider, storage: storage, tenant: Self.tenant(0))
        let parameters = try (0..<tenants).map { t in
            try (0..<resources).map { r in
                let p = MSALClientCredentialParameters(scopes: [Self.scope(r)])
                p.authority = try MSALAADAuthority(url: URL(string: "https://\(Self.host)/\(Self.tenant(t))")!)
                return p
            }
        }
        // First call per tenant resolves its authority (metadata from the in-process provider).
        let resolveStart = DispatchTime.now().uptimeNanoseconds
        for row in parameters { _ = try await app.acquireTokenForClient(with: row[0]) }
        let resolveSeconds = Double(DispatchTime.now().uptimeNanoseconds - resolveStart) / 1e9
        let tokenRequestsBefore = provider.requestCount
        var generator = SplitMix64(seed: 7)
        var samples = [UInt64]()
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let t = Int(generator.next() % UInt64(tenants))
            let r = Int(generator.next() % UInt64(resources))
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try await app.acquireTokenForClient(with: parameters[t][r])
            let end = DispatchTime.now().uptimeNanoseconds
            if result.tokenSource != .cache { throw ValidationError("a cache miss during the timed calls") }
            samples.append(end - start)
        }
        let requestsDuringHits = provider.requestCount - tokenRequestsBefore
        samples.sort()
        func percentile(_ p: Double) -> Double { Double(samples[min(samples.count - 1, Int(Double(samples.count) * p))]) / 1000 }

        // Concurrent requests for one expired token: one request.
        let clock = MSALTestClock()
        let fresh = try Self.makeApp(provider: provider, storage: MSALInMemoryTokenCacheStorage(), tenant: Self.tenant(0),
                                     clock: clock)
        _ = try await fresh.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: [Self.scope(0)]))
        clock.advance(7200)
        provider.tokenDelay = 0.05
        let before = provider.requestCount
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrent {
                group.addTask { _ = try await fresh.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: [Self.scope(0)])) }
            }
            try await group.waitForAll()
        }
        let concurrentRequests = provider.requestCount - before

        let report: [String: Any] = [
            "tenants": tenants, "resources": resources, "app_tokens": tenants * resources,
            "cache_bytes": cacheData.count, "iterations": iterations,
            "p50_us": percentile(0.50), "p90_us": percentile(0.90), "p99_us": percentile(0.99),
            "max_us": Double(samples.last ?? 0) / 1000,
            "mean_us": Double(samples.reduce(0, +)) / Double(samples.count) / 1000,
            "first_calls_s": resolveSeconds, "network_requests_during_hits": requestsDuringHits,
            "concurrent_requests": concurrent, "token_requests_for_concurrent_expired": concurrentRequests,
        ]
        if json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for key in report.keys.sorted() { print("\(key): \(report[key]!)") }
        }
        if requestsDuringHits != 0 { throw ValidationError("cache hits made \(requestsDuringHits) requests") }
        if concurrentRequests != 1 { throw ValidationError("\(concurrent) concurrent requests sent \(concurrentRequests)") }
    }

    static func makeApp(provider: MSALScriptedIdentityProvider, storage: any MSALTokenCacheStorage, tenant: String,
                        clock: MSALTestClock? = nil) throws -> MSALConfidentialClientApplication {
        let config = MSALConfidentialClientApplicationConfig(
            clientId: clientId, clientCredential: .secret("bench-secret"),
            authority: try MSALAADAuthority(url: URL(string: "https://\(host)/\(tenant)")!))
        config.httpClient = provider
        config.clock = clock
        config.cacheConfig.storage = storage
        return try MSALConfidentialClientApplication(configuration: config)
    }

    /// The unified cache with `tenants` x `resources` app tokens valid for a day, as MSAL for Python writes them.
    static func cacheDocument(tenants: Int, resources: Int) -> Data {
        let now = Int(Date().timeIntervalSince1970)
        var tokens: [String: Any] = [:]
        tokens.reserveCapacity(tenants * resources)
        for t in 0..<tenants {
            for r in 0..<resources {
                let key = "-\(host)-accesstoken-\(clientId)-\(tenant(t))-\(scope(r))".lowercased()
                tokens[key] = [
                    "credential_type": "AccessToken", "secret": "at-\(t)-\(r)-" + String(repeating: "x", count: 1200),
                    "home_account_id": NSNull(), "environment": host, "client_id": clientId, "target": scope(r),
                    "realm": tenant(t), "token_type": "Bearer", "cached_at": String(now),
                    "expires_on": String(now + 86_400), "extended_expires_on": String(now + 86_400),
                ] as [String: Any]
            }
        }
        let document: [String: Any] = [
            "AccessToken": tokens, "Account": [String: Any](), "IdToken": [String: Any](), "RefreshToken": [String: Any](),
            "AppMetadata": ["appmetadata-\(host)-\(clientId)": ["client_id": clientId, "environment": host]],
        ]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data()
    }
}
