public import Foundation
public import MSALCore

/// A partitioned token cache storage in memory (``MSALPartitionedTokenCacheStorage``): what the PostgreSQL cache
/// does, without a database, for tests of applications with a partitioned cache. Several application objects
/// sharing one instance behave as instances of a server sharing one database: versions, compare-and-set writes,
/// one lock per partition (first come, first served), change notifications.
///
/// Tests can also make it misbehave: ``failing`` makes every call throw, ``tamper(_:)`` makes a partition
/// unreadable, and ``write(partition:data:expiresOn:expectedVersion:)`` from another "instance" is
/// ``writeAsAnotherInstance(partition:data:)``.
public final class MSALInMemoryPartitionedTokenCacheStorage: MSALPartitionedTokenCacheStorage, @unchecked Sendable {
    private struct Row {
        var data: Data
        var version: Int64
        var unreadable = false
    }

    private struct LockState {
        var held = false
        var waiters: [(id: UUID, resume: CheckedContinuation<Void, any Error>)] = []
    }

    private let lock = NSLock()
    private var rows: [String: Row] = [:]
    private var nextVersion: Int64 = 1
    private var locks: [String: LockState] = [:]
    private var handlers: [@Sendable (String?, Int64?) -> Void] = []
    private var counters = Counters()
    private var failure: (any Error)?

    /// How often each operation ran, and how many lock waits timed out.
    public struct Counters: Sendable, Equatable {
        public var reads = 0
        public var writes = 0
        public var conflicts = 0
        public var locks = 0
        public var lockTimeouts = 0
    }

    private let clock: any MSALClock

    /// An empty storage whose lock waits are measured on `clock` (a ``MSALTestClock`` makes a lock timeout happen
    /// when the test advances it).
    public init(clock: any MSALClock = MSALSystemClock()) {
        self.clock = clock
    }

    /// What ran so far.
    public var counts: Counters { lock.withLock { counters } }

    /// When set, every call throws it (the storage is down).
    public var failing: (any Error)? {
        get { lock.withLock { failure } }
        set { lock.withLock { failure = newValue } }
    }

    /// The stored document of `partition`, if any.
    public func data(of partition: String) -> Data? { lock.withLock { rows[partition]?.data } }

    /// The partitions stored now.
    public var partitions: [String] { lock.withLock { rows.keys.sorted() } }

    /// Makes the stored `partition` unreadable (as a row encrypted with an unknown key).
    public func tamper(_ partition: String) { lock.withLock { rows[partition]?.unreadable = true } }

    /// Stores `data` for `partition` as another instance would (a new version, and a change notification).
    public func writeAsAnotherInstance(partition: String, data: Data) {
        let version = lock.withLock { () -> Int64 in
            defer { nextVersion += 1 }
            rows[partition] = Row(data: data, version: nextVersion)
            return nextVersion
        }
        notify(partition, version)
    }

    public func read(partition: String, knownVersion: Int64?) async throws -> MSALPartitionedCacheRead {
        try lock.withLock { () throws -> MSALPartitionedCacheRead in
            if let failure { throw failure }
            counters.reads += 1
            guard let row = rows[partition] else { return .absent }
            if row.unreadable { throw MSALPartitionedCacheError(.unreadable, "the stored partition cannot be decrypted") }
            if row.version == knownVersion { return .unchanged }
            return .found(data: row.data, version: row.version)
        }
    }

    public func write(partition: String, data: Data, expiresOn: Date, expectedVersion: Int64?) async throws -> Int64 {
        let version = try lock.withLock { () throws -> Int64 in
            if let failure { throw failure }
            guard rows[partition]?.version == expectedVersion else {
                counters.conflicts += 1
                throw MSALPartitionedCacheError(.versionConflict, "the partition was written by another instance first")
            }
            counters.writes += 1
            defer { nextVersion += 1 }
            rows[partition] = Row(data: data, version: nextVersion)
            return nextVersion
        }
        notify(partition, version)
        return version
    }

    /// Takes `partition`'s lock: at once when it is free, else after the callers before this one, or a
    /// ``MSALPartitionedCacheError/Kind/lockTimeout`` when `timeout` seconds of the storage's clock pass first.
    public func withPartitionLock<T: Sendable>(partition: String, timeout: TimeInterval,
                                               _ body: () async throws -> T) async throws -> T {
        if let failure = failing { throw failure }
        try await acquire(partition, timeout: timeout)
        defer { release(partition) }
        return try await body()
    }

    public func addInvalidationHandler(_ handler: @escaping @Sendable (String?, Int64?) -> Void) {
        lock.withLock { handlers.append(handler) }
    }

    /// Holds `partition`'s lock as another instance would, until the returned release is called.
    public func holdLockAsAnotherInstance(_ partition: String) async throws -> @Sendable () -> Void {
        try await acquire(partition, timeout: 3600)
        return { [self] in release(partition) }
    }

    private func acquire(_ partition: String, timeout: TimeInterval) async throws {
        let id = UUID()
        let timer = LockedBox<Task<Void, Never>?>(nil)
        defer { timer.get()?.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.lock()
            counters.locks += 1
            guard locks[partition, default: LockState()].held else {
                locks[partition, default: LockState()].held = true
                lock.unlock()
                continuation.resume()
                return
            }
            locks[partition, default: LockState()].waiters.append((id, continuation))
            lock.unlock()
            // Only a caller that waits sleeps on the clock, until its timeout.
            timer.set(Task { [self] in
                guard (try? await clock.sleep(seconds: timeout)) != nil else { return }
                giveUp(partition, id: id)
            })
        }
    }

    private func giveUp(_ partition: String, id: UUID) {
        lock.lock()
        guard let index = locks[partition]?.waiters.firstIndex(where: { $0.id == id }),
              let waiter = locks[partition]?.waiters.remove(at: index) else { lock.unlock(); return }
        counters.lockTimeouts += 1
        lock.unlock()
        waiter.resume.resume(throwing: MSALPartitionedCacheError(.lockTimeout, "the partition lock was held too long"))
    }

    private func release(_ partition: String) {
        lock.lock()
        guard var state = locks[partition], !state.waiters.isEmpty else {
            locks[partition] = nil
            lock.unlock()
            return
        }
        let next = state.waiters.removeFirst()
        locks[partition] = state
        lock.unlock()
        next.resume.resume()
    }

    private func notify(_ partition: String, _ version: Int64) {
        for handler in lock.withLock({ handlers }) { handler(partition, version) }
    }
}
