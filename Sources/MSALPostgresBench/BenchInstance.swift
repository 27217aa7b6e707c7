import Foundation
import MSALCore
import MSALPostgresCache
import MSALTesting

/// What one worker measured, in microseconds.
struct BenchSamples: Codable {
    var l2: [Double] = []
    var l1: [Double] = []
    var refresh: [Double] = []
    var waited: [Double] = []
    var l1Sequential: [Double] = []
    var l2Sequential: [Double] = []
    var appSequential: [Double] = []
    var l1Seconds = 0.0
    var errors = 0
    var l1Hits = 0
    var l2Hits = 0
    var l2Errors = 0
    var tokenRequests = 0
    var staleReloads = 0
}

/// One application instance of the bench (a worker process).
enum BenchInstance {
    static func run(phase: String, index: Int, _ options: BenchOptions) async throws -> BenchSamples {
        let cache = try BenchSeed.cache(options)
        let idp = try BenchSeed.cache(options, notifications: false)
        defer { Task { await cache.shutdown(); await idp.shutdown() } }
        let metadata = MSALScriptedIdentityProvider()
        metadata.recordsRequests = false
        let config = MSALConfidentialClientApplicationConfig(
            clientId: BenchSeed.clientId, clientCredential: .secret("s"),
            authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/\(BenchSeed.tenant)")!))
        config.httpClient = BenchIdentityProvider(metadata: metadata, client: idp.client)
        var partitioned = MSALPartitionedCacheConfig(storage: cache)
        partitioned.lockTimeout = 30
        config.partitionedCache = partitioned
        let app = try MSALConfidentialClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: config.httpClient!))
        var samples = BenchSamples()
        let collector = Collector()
        if phase == "read" {
            let first = options.expired + index * options.readUsers
            let users = Array(first..<(first + options.readUsers))
            let accounts = AccountBox()
            // Process 0 first loads 500 of its users from one task alone: the cost of an L2 hit without contention.
            let alone = index == 0 ? Array(users.prefix(500)) : []
            for user in alone {
                let started = ContinuousClock.now
                guard let account = try await app.loadAccount(forIdentifier: BenchSeed.homeAccountId(user)) else {
                    collector.error(); continue
                }
                collector.add(\.l2Sequential, started)
                accounts.set(user, account)
            }
            try await concurrently(options.tasks, Array(users.dropFirst(alone.count))) { user in
                let started = ContinuousClock.now
                guard let account = try await app.loadAccount(forIdentifier: BenchSeed.homeAccountId(user)) else {
                    collector.error(); return
                }
                collector.add(\.l2, started)
                accounts.set(user, account)
            }
            let all = accounts.all()
            let wall = ContinuousClock.now
            try await concurrently(options.tasks, Array(repeating: all, count: options.rounds).flatMap { $0 }) { account in
                let started = ContinuousClock.now
                _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
                collector.add(\.l1, started)
            }
            samples.l1Seconds = seconds(ContinuousClock.now - wall)
            if index == 0, let account = all.first {
                // One task alone: the cost of a memory hit without contention.
                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                let app = app
                for _ in 0..<20_000 {
                    let started = ContinuousClock.now
                    _ = try await app.acquireTokenSilent(with: parameters)
                    collector.add(\.l1Sequential, started)
                }
                let client = MSALClientCredentialParameters(scopes: ["https://graph.microsoft.com/.default"])
                _ = try await app.acquireTokenForClient(with: client)
                for _ in 0..<20_000 {
                    let started = ContinuousClock.now
                    _ = try await app.acquireTokenForClient(with: client)
                    collector.add(\.appSequential, started)
                }
            }
        } else {
            // Every process walks the expired users in the same order, two tasks per user: contention on each
            // partition across processes and within each.
            let users = (0..<options.expired).flatMap { [$0, $0] }
            try await concurrently(options.tasks, users) { user in
                guard let account = try await app.loadAccount(forIdentifier: BenchSeed.homeAccountId(user)) else {
                    collector.error(); return
                }
                let probe = CallProbe()
                let started = ContinuousClock.now
                do {
                    _ = try await CallProbe.$current.withValue(probe) {
                        try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
                    }
                    collector.add(probe.refreshed ? \.refresh : \.waited, started)
                } catch {
                    collector.error()
                    if collector.samples.errors <= 3 {
                        FileHandle.standardError.write(Data("refresh call failed: \(error)\n".utf8))
                    }
                }
            }
        }
        let measured = collector.samples
        samples.l2 = measured.l2
        samples.l1 = measured.l1
        samples.l1Sequential = measured.l1Sequential
        samples.l2Sequential = measured.l2Sequential
        samples.appSequential = measured.appSequential
        samples.refresh = measured.refresh
        samples.waited = measured.waited
        samples.errors = measured.errors
        let statistics = app.partitionedCacheStatistics ?? MSALPartitionedCacheStatistics()
        samples.l1Hits = statistics.l1Hits
        samples.l2Hits = statistics.l2Hits
        samples.l2Errors = statistics.l2Errors
        samples.tokenRequests = statistics.tokenRequests
        samples.staleReloads = statistics.staleReloads
        return samples
    }

    /// Runs `body` on every item with `width` tasks.
    static func concurrently<T: Sendable>(_ width: Int, _ items: [T],
                                          _ body: @escaping @Sendable (T) async throws -> Void) async throws {
        let next = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, width) {
                group.addTask {
                    while true {
                        let position = next.take()
                        guard position < items.count else { return }
                        try await body(items[position])
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func take() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

final class AccountBox: @unchecked Sendable {
    private let lock = NSLock()
    private var accounts: [Int: MSALAccount] = [:]
    func set(_ user: Int, _ account: MSALAccount) { lock.withLock { accounts[user] = account } }
    func all() -> [MSALAccount] { lock.withLock { accounts.keys.sorted().compactMap { accounts[$0] } } }
}

final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var value = BenchSamples()
    var samples: BenchSamples { lock.withLock { value } }
    func add(_ path: WritableKeyPath<BenchSamples, [Double]>, _ started: ContinuousClock.Instant) {
        let micros = BenchInstance.seconds(ContinuousClock.now - started) * 1e6
        lock.withLock { value[keyPath: path].append(micros) }
    }
    func error() { lock.withLock { value.errors += 1 } }
}
