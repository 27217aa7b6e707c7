import Crypto
import Foundation
import Logging
import MSALCore
import MSALPostgresCache
import MSALTesting
import PostgresNIO

/// The bench's users, their partitions, and the cluster.
enum BenchSeed {
    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let templateOid = "00000000-0000-0000-0000-00000000beef"
    /// The bench's fixed key (a benchmark, not a secret).
    static let key = SymmetricKey(data: Data(repeating: 7, count: 32))

    static func oid(_ user: Int) -> String { String(format: "00000000-0000-0000-0000-%012x", user) }
    static func homeAccountId(_ user: Int) -> String { "\(oid(user)).\(tenant)" }

    static func postgres() throws -> PostgresClient.Configuration {
        let environment = ProcessInfo.processInfo.environment
        guard let host = environment["MSAL_POSTGRES_HOST"], let port = environment["MSAL_POSTGRES_PORT"].flatMap(Int.init) else {
            throw MSALPostgresCacheError.configuration("Set MSAL_POSTGRES_HOST and MSAL_POSTGRES_PORT (scripts/postgres-bench.sh).")
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: environment["MSAL_POSTGRES_USER"] ?? "msal", password: nil,
            database: environment["MSAL_POSTGRES_DATABASE"] ?? "postgres", tls: .disable)
        configuration.options.maximumConnections = 24
        return configuration
    }

    static func cache(_ options: BenchOptions, notifications: Bool = true) throws -> MSALPostgresTokenCache {
        var configuration = MSALPostgresTokenCache.Configuration(
            postgres: try postgres(), keyRing: try MSALPostgresCacheKeyRing(keyId: "bench", key: key))
        configuration.tableName = options.table
        configuration.notifications = notifications
        var logger = Logger(label: "msal.postgres-bench")
        logger.logLevel = .error
        configuration.logger = logger
        return try MSALPostgresTokenCache(configuration: configuration)
    }

    /// A user's cache document as MSAL writes it (made once by a real sign-in), for `user`, with an access token
    /// that expires at `expiresOn` and refresh token generation 0.
    static func template() async throws -> String {
        let provider = MSALScriptedIdentityProvider()
        provider.user = .init(oid: templateOid, tenant: tenant, username: "bench@contoso.example", name: "Bench")
        provider.sendsIdToken = true
        let storage = MSALInMemoryTokenCacheStorage()
        let config = MSALConfidentialClientApplicationConfig(
            clientId: clientId, clientCredential: .secret("s"),
            authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!))
        config.httpClient = provider
        config.cacheConfig.storage = storage
        let app = try MSALConfidentialClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: provider, cacheStorage: { storage }))
        let flow = try await app.startAuthorizationCodeFlow(
            with: MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: "https://app.example/callback"))
        _ = try await app.acquireToken(byAuthorizationCodeFlow: flow, response: provider.authorize(flow.authorizationURL))
        var object = try JSONSerialization.jsonObject(with: storage.data ?? Data()) as? [String: Any] ?? [:]
        object.removeValue(forKey: "IdToken")
        for (section, secret) in [("AccessToken", "AT_SECRET"), ("RefreshToken", "RT_SECRET")] {
            var entries = object[section] as? [String: Any] ?? [:]
            for (key, value) in entries {
                var entry = value as? [String: Any] ?? [:]
                entry["secret"] = secret
                if section == "AccessToken" {
                    entry["expires_on"] = "EXPIRES_ON"
                    entry["extended_expires_on"] = "EXPIRES_ON"
                }
                entries[key] = entry
            }
            object[section] = entries
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func document(_ template: String, user: Int, expired: Bool, now: Date) -> Data {
        let expiry = Int(now.timeIntervalSince1970) + (expired ? -600 : 7200)
        return Data(template.replacingOccurrences(of: templateOid, with: oid(user))
            .replacingOccurrences(of: "AT_SECRET", with: "at.\(user).0")
            .replacingOccurrences(of: "RT_SECRET", with: "rt.\(user).0")
            .replacingOccurrences(of: "EXPIRES_ON", with: String(expiry)).utf8)
    }

    /// Users `0..<expired` have expired access tokens; the read phase uses the others.
    static func seed(_ options: BenchOptions) async throws -> (seconds: Double, rowsPerUser: Double, bytesPerUser: Int,
                                                            dataBytesPerUser: Int) {
        let cache = try cache(options, notifications: false)
        defer { Task { await cache.shutdown() } }
        let client = cache.client
        try await client.query("DROP TABLE IF EXISTS \(unescaped: options.table)")
        try await client.query("DROP TABLE IF EXISTS bench_idp")
        try await cache.prepareSchema()
        try await client.query("CREATE TABLE bench_idp (uid text PRIMARY KEY, gen integer NOT NULL, lost integer NOT NULL DEFAULT 0)")
        let template = try await template()
        let started = ContinuousClock.now
        let now = Date()
        var batch: [MSALPostgresTokenCache.PartitionImport] = []
        for user in 0..<options.users {
            batch.append(.init(partition: homeAccountId(user), data: document(template, user: user, expired: user < options.expired, now: now),
                               expiresOn: now.addingTimeInterval(90 * 86_400)))
            if batch.count == 5_000 || user == options.users - 1 {
                try await cache.importPartitions(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try await client.query("INSERT INTO bench_idp (uid, gen) SELECT 'u' || g, 0 FROM generate_series(0, \(options.expired - 1)) g")
        try await client.query("ANALYZE \(unescaped: options.table)")
        let seconds = Double((ContinuousClock.now - started).components.seconds)
            + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
        let rows = try await client.query(
            "SELECT count(*)::bigint, sum(length(data))::bigint, pg_total_relation_size(\(options.table))::bigint FROM \(unescaped: options.table)"
        ).collect()
        let (count, dataBytes, totalBytes) = try rows[0].decode((Int64, Int64, Int64).self)
        return (seconds, Double(count) / Double(options.users), Int(totalBytes) / options.users, Int(dataBytes) / options.users)
    }

    static func refreshCounts(_ options: BenchOptions) async throws -> (partitions: Int, refreshes: Int, maxPerPartition: Int,
                                                                     lostRotations: Int) {
        let cache = try cache(options, notifications: false)
        defer { Task { await cache.shutdown() } }
        let rows = try await cache.client.query(
            "SELECT count(*)::bigint, coalesce(sum(gen), 0)::bigint, coalesce(max(gen), 0)::bigint, coalesce(sum(lost), 0)::bigint FROM bench_idp"
        ).collect()
        let (partitions, refreshes, most, lost) = try rows[0].decode((Int64, Int64, Int64, Int64).self)
        return (Int(partitions), Int(refreshes), Int(most), Int(lost))
    }
}
