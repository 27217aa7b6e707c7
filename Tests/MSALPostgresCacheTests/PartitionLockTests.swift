import Foundation
import MSALTestSupport
import MSALCore
import MSALPostgresCache
import MSALTesting
import Testing

/// The advisory locks: released on errors and cancellation; a lock held too long is a typed timeout.
@Suite("PostgreSQL token cache: partition locks", .enabled(if: TestDatabase.isAvailable))
struct PartitionLockTests {
    struct Boom: Error {}

    @Test func aLockIsReleasedWhenItsBodyThrowsOrIsCancelled() async throws {
        let table = TestDatabase.uniqueTable()
        let a = try await TestDatabase.makeCache(table: table, notifications: false)
        let b = try await TestDatabase.makeCache(table: table, notifications: false)
        defer { Task { await a.shutdown(); await b.shutdown() } }
        await #expect(throws: Boom.self) {
            try await a.withPartitionLock(partition: "p", timeout: 1) { throw Boom() }
        }
        #expect(try await b.withPartitionLock(partition: "p", timeout: 1) { true })
        let holding = Flag()
        let held = Task {
            try await a.withPartitionLock(partition: "p", timeout: 1) {
                holding.set()
                try await Gate().pass()
            }
        }
        defer { held.cancel() }
        try await eventually("the other connection holds the lock") { holding.isSet }
        await #expect(throws: MSALPartitionedCacheError.self) {
            try await b.withPartitionLock(partition: "p", timeout: 0.2) { true }
        }
        held.cancel()
        _ = await held.result
        let started = ContinuousClock.now
        #expect(try await b.withPartitionLock(partition: "p", timeout: 2) { true })
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func aCallThatNeedsAPartitionLockedTooLongFailsWithATypedTimeout() async throws {
        try await withDatabase { table, provider, clock in
            let a = try await Instance.make(provider, clock: clock, table: table) { $0.lockTimeout = 0.5 }
            let other = try await TestDatabase.makeCache(table: table, notifications: false)
            defer { Task { await a.cache.shutdown(); await other.shutdown() } }
            let partition = "\(Instance.clientId)_\(Instance.tenant)"
            // The other instance holds the partition's lock (waited for, not assumed: a loaded machine may take a
            // while to connect), for longer than the call will wait.
            let held = HeldFlag()
            let holding = Task {
                try await other.withPartitionLock(partition: partition, timeout: 30) {
                    await held.set()
                    try await Gate().pass()
                }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while await !held.value && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try #require(await held.value, "the other instance never took the partition's lock")
            provider.resetLog()
            do {
                _ = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(
                    scopes: ["https://graph.microsoft.com/.default"]))
                Issue.record("a token was returned while the partition was locked")
            } catch let error as MSALErrorInfo {
                #expect((error.underlyingError as? MSALPartitionedCacheError)?.kind == .lockTimeout)
            }
            #expect(provider.grants("client_credentials") == 0)
            #expect(a.statistics.lockTimeouts == 1)
            holding.cancel()
            _ = await holding.result
            _ = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(
                scopes: ["https://graph.microsoft.com/.default"]))
            #expect(provider.grants("client_credentials") == 1)
        }
    }
}

/// Set once a task holds what the test waits for.
actor HeldFlag {
    private(set) var value = false
    func set() { value = true }
}
