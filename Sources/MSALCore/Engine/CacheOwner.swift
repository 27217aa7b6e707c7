import Foundation

/// The single owner of the token cache: every read and write goes through its lock, so one application's
/// cache is consistent across threads and tasks, and the synchronous account APIs can read it directly.
/// Cross-process consistency comes from the storage's file lock (``TokenCacheStore/update(_:)``).
///
/// In a partitioned application (``MSALPartitionedCacheConfig``), a call bound to a partition of this owner
/// (``PartitionBinding``) reads and changes that partition's in-memory document instead; the partitioned cache
/// loads it before the call and stores it after.
final class CacheOwner: @unchecked Sendable {
    private let lock = NSLock()
    private let store: TokenCacheStore

    init(store: TokenCacheStore) {
        self.store = store
    }

    /// Runs `body` on the current document (re-read first if another process changed the storage).
    /// The time it takes counts as cache time of the running call (``RequestDiagnostics``).
    func read<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try RequestDiagnostics.timingCache {
            if let slot = boundSlot { return try slot.withDocument(body) }
            lock.lock()
            defer { lock.unlock() }
            return try body(try store.currentDocument())
        }
    }

    /// Runs `body` holding the storage's cross-process refresh lock for `key` (``MSALTokenCacheRefreshLocking``),
    /// or at once when the storage has none.
    func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                      _ body: @Sendable () async throws -> T) async throws -> T {
        guard let locking = store.storage as? any MSALTokenCacheRefreshLocking else { return try await body() }
        return try await locking.withRefreshLock(key: key, timeout: timeout, body)
    }

    /// Runs `body` on the document under the storage lock and persists the result before returning.
    /// The time it takes counts as cache time of the running call (``RequestDiagnostics``).
    func update<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try RequestDiagnostics.timingCache {
            if let slot = boundSlot { return try slot.withDocument(body) }
            lock.lock()
            defer { lock.unlock() }
            return try store.update(body)
        }
    }

    /// The partition the current call is bound to, when it is one of this owner's.
    private var boundSlot: PartitionSlot? {
        guard let operation = PartitionBinding.current, operation.owner == ObjectIdentifier(self) else { return nil }
        return operation.slot
    }
}

/// Concurrent silent requests for the same account, authority and scopes share one refresh and its result.
typealias RefreshCoordinator = SingleFlight<MSALResult>

/// Runs at most one operation per key at a time: concurrent callers with the same key share its result.
actor SingleFlight<Value: Sendable> {
    private var inFlight: [String: Task<Value, any Error>] = [:]

    func run(_ key: String, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let existing = inFlight[key] {
            return try await existing.value
        }
        let task = Task { try await operation() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return try await task.value
    }
}
