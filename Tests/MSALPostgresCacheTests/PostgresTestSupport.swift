import Crypto
import Foundation
import Logging
import MSAL
import MSALCore
import MSALPostgresCache
import MSALTesting
import PostgresNIO
import Testing
import MSALTestSupport

/// The throw-away cluster scripts/postgres-test-cluster.sh starts, from the environment.
enum TestDatabase {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Whether the tests run: a cluster is configured. When MSAL_POSTGRES_REQUIRED=1 and none is, the tests fail.
    static var isAvailable: Bool {
        if environment["MSAL_POSTGRES_PORT"] != nil { return true }
        return environment["MSAL_POSTGRES_REQUIRED"] == "1"
    }

    @TaskLocal static var applicationName = "msal-tests"

    static func postgresConfiguration(port: Int? = nil) throws -> PostgresClient.Configuration {
        guard let host = environment["MSAL_POSTGRES_HOST"], let configuredPort = environment["MSAL_POSTGRES_PORT"].flatMap(Int.init) else {
            throw MSALPostgresCacheError.configuration(
                "MSAL_POSTGRES_REQUIRED=1 but no cluster is configured (run through scripts/postgres-test-cluster.sh)")
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port ?? configuredPort, username: environment["MSAL_POSTGRES_USER"] ?? "msal", password: nil,
            database: environment["MSAL_POSTGRES_DATABASE"] ?? "postgres", tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        configuration.options.maximumConnections = 12
        // Tests that kill connections kill only their own (see pg_stat_activity.application_name).
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    static let keyA = SymmetricKey(size: .bits256)
    static let keyB = SymmetricKey(size: .bits256)

    /// A table of its own for one test, so that tests running in parallel never see each other's rows.
    static func uniqueTable() -> String { "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased() }

    static func makeCache(table: String, keyRing: MSALPostgresCacheKeyRing? = nil, port: Int? = nil,
                          notifications: Bool = true) async throws -> MSALPostgresTokenCache {
        var configuration = MSALPostgresTokenCache.Configuration(
            postgres: try postgresConfiguration(port: port),
            keyRing: try keyRing ?? MSALPostgresCacheKeyRing(keyId: "a", key: keyA))
        configuration.tableName = table
        configuration.notifications = notifications
        let cache = try MSALPostgresTokenCache(configuration: configuration)
        if port == nil { try await cache.prepareSchema() }
        return cache
    }
}

/// One application instance: an app on its own pool, sharing the provider (and the clock) with the others.
struct Instance {
    var app: MSALConfidentialClientApplication
    var cache: MSALPostgresTokenCache

    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"

    static func make(_ provider: MSALScriptedIdentityProvider, clock: MSALTestClock, table: String,
                     keyRing: MSALPostgresCacheKeyRing? = nil, port: Int? = nil, http: (any MSALHTTPClient)? = nil,
                     tune: (inout MSALPartitionedCacheConfig) -> Void = { _ in }) async throws -> Instance {
        let cache = try await TestDatabase.makeCache(table: table, keyRing: keyRing, port: port)
        let config = MSALConfidentialClientApplicationConfig(
            clientId: clientId, clientCredential: .secret("s3cret"),
            authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!))
        config.httpClient = http ?? provider
        config.clock = clock
        var partitioned = MSALPartitionedCacheConfig(storage: cache)
        partitioned.lockTimeout = 5
        partitioned.storageTimeout = 1.5
        tune(&partitioned)
        config.partitionedCache = partitioned
        let app = try MSALConfidentialClientApplication(configuration: config)
        return Instance(app: app, cache: cache)
    }

    var statistics: MSALPartitionedCacheStatistics { app.partitionedCacheStatistics ?? MSALPartitionedCacheStatistics() }

    /// Signs the provider's user in to the web app (authorization code flow); returns the result.
    func signIn(_ provider: MSALScriptedIdentityProvider, scopes: [String] = ["User.Read"]) async throws -> MSALResult {
        let flow = try await app.startAuthorizationCodeFlow(
            with: MSALAuthorizationCodeParameters(scopes: scopes, redirectUri: "https://app.example/callback"))
        return try await app.acquireToken(byAuthorizationCodeFlow: flow, response: provider.authorize(flow.authorizationURL))
    }
}

/// Runs `body` with a fresh table, provider and clock, and shuts the caches down after it.
func withDatabase(_ body: (String, MSALScriptedIdentityProvider, MSALTestClock) async throws -> Void) async throws {
    let provider = MSALScriptedIdentityProvider()
    let clock = MSALTestClock()
    provider.clock = clock
    try await body(TestDatabase.uniqueTable(), provider, clock)
}

extension MSALScriptedIdentityProvider {
    /// The token requests with `grant_type`.
    func grants(_ grantType: String) -> Int {
        tokenRequestBodies().filter { $0["grant_type"] == grantType }.count
    }
}

/// Runs SQL on the test database (as the tests' own tampering and inspection).
func sql(_ cache: MSALPostgresTokenCache, _ query: PostgresQuery) async throws -> [PostgresRow] {
    try await cache.client.query(query).collect()
}
