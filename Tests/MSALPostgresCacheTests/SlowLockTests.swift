import Foundation
import MSAL
import MSALCore
import MSALPostgresCache
import MSALTesting
import Testing
import MSALTestSupport

/// A call whose partition lock comes late (slow storage on a loaded server) is not failed for it: a partition still
/// without a row is no change, and a run made stale by taking the lock runs once more under it.
@Suite("PostgreSQL token cache: slow partition locks", .enabled(if: TestDatabase.isAvailable))
struct SlowLockTests {
    /// The PostgreSQL cache with a hook before the first lock: another instance's write, then a wait.
    final class SlowFirstLock: MSALPartitionedTokenCacheStorage, @unchecked Sendable {
        let base: MSALPostgresTokenCache
        private let hook = NSLock()
        private var beforeFirstLock: (@Sendable () async throws -> Void)?

        init(base: MSALPostgresTokenCache, beforeFirstLock: @escaping @Sendable () async throws -> Void) {
            self.base = base
            self.beforeFirstLock = beforeFirstLock
        }

        func read(partition: String, knownVersion: Int64?) async throws -> MSALPartitionedCacheRead {
            try await base.read(partition: partition, knownVersion: knownVersion)
        }

        func write(partition: String, data: Data, expiresOn: Date, expectedVersion: Int64?) async throws -> Int64 {
            try await base.write(partition: partition, data: data, expiresOn: expiresOn, expectedVersion: expectedVersion)
        }

        func withPartitionLock<T: Sendable>(partition: String, timeout: TimeInterval,
                                            _ body: () async throws -> T) async throws -> T {
            let first = hook.withLock { () -> (@Sendable () async throws -> Void)? in
                defer { beforeFirstLock = nil }
                return beforeFirstLock
            }
            if let first { try await first() }
            return try await base.withPartitionLock(partition: partition, timeout: timeout, body)
        }

        func addInvalidationHandler(_ handler: @escaping @Sendable (String?, Int64?) -> Void) {}
    }

    static func makeApp(_ storage: any MSALPartitionedTokenCacheStorage, provider: MSALScriptedIdentityProvider,
                        clock: MSALTestClock) throws -> MSALConfidentialClientApplication {
        let config = MSALConfidentialClientApplicationConfig(
            clientId: Instance.clientId, clientCredential: .secret("s3cret"),
            authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/\(Instance.tenant)")!))
        config.httpClient = provider
        config.clock = clock
        var partitioned = MSALPartitionedCacheConfig(storage: storage)
        partitioned.lockTimeout = 1
        partitioned.storageTimeout = 3
        config.partitionedCache = partitioned
        return try MSALConfidentialClientApplication(configuration: config)
    }

    /// A partition with no row, still without one when the lock comes late: nothing changed, so the call goes on
    /// with its one token request. The lock is held back until the test has seen that no request went out before it.
    @Test func aSlowLockOnAPartitionStillAbsentIsNotAChange() async throws {
        try await withDatabase { table, provider, clock in
            let base = try await TestDatabase.makeCache(table: table, notifications: false)
            defer { Task { await base.shutdown() } }
            let gate = Gate()
            let storage = SlowFirstLock(base: base) { try await gate.pass() }
            let app = try Self.makeApp(storage, provider: provider, clock: clock)
            let parameters = MSALClientCredentialParameters(scopes: ["https://graph.microsoft.com/.default"])
            let call = Task { try await app.acquireTokenForClient(with: parameters) }
            try await gate.waitForArrivals(1)
            #expect(provider.grants("client_credentials") == 0)
            gate.openGate()
            _ = try await value(of: call)
            #expect(provider.grants("client_credentials") == 1)
            #expect(app.partitionedCacheStatistics?.staleReloads == 0)
            #expect(app.partitionedCacheStatistics?.tokenRequests == 1)
        }
    }
}
