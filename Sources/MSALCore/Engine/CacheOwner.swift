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

    /// Runs `body` holding the refresh lock for `key`: first in this process (callers with the same key take turns,
    /// whatever storage the cache has), then the storage's cross-process refresh lock
    /// (``MSALTokenCacheRefreshLocking``) when it has one.
    func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                      _ body: @Sendable () async throws -> T) async throws -> T {
        await refreshTurns.acquire(key)
        do {
            let value: T
            if let locking = store.storage as? any MSALTokenCacheRefreshLocking {
                value = try await locking.withRefreshLock(key: key, timeout: timeout, body)
            } else {
                value = try await body()
            }
            await refreshTurns.release(key)
            return value
        } catch {
            await refreshTurns.release(key)
            throw error
        }
    }

    /// The in-process half of ``withRefreshLock(key:timeout:_:)``.
    private let refreshTurns = KeyedTurns()

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

    /// Stores a token just obtained (`body` under the storage lock, as ``update(_:)``), waiting for the lock past
    /// the storage's own lock timeout: another program may hold a busy shared cache for a long time, and a token
    /// the user signed in for (or a rotated refresh token) must not be dropped because of it. Lock timeouts are
    /// retried until `patience` has passed (the same monotonic time the storage's lock waits are measured in);
    /// then the last one is thrown.
    func save<T>(patience: TimeInterval, log: MSALLog, _ body: (TokenCacheDocument) throws -> T) throws -> T {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(max(0, min(patience, 86_400)) * 1000)))
        while true {
            do {
                return try update(body)
            } catch let error as MSALErrorInfo where error.internalCode == .internalErrorTokenCacheLockTimeout {
                guard ContinuousClock.now < deadline else { throw error }
                log.info("The token cache is busy (\(error.errorDescription)); still waiting to store the new token.")
            }
        }
    }

    /// How long storing a token just obtained waits for a busy cache, across lock timeouts (``save(patience:log:_:)``).
    static let savePatience: TimeInterval = 120

    /// Stores a token just obtained. It is never dropped because the cache is busy: the wait goes on past the
    /// storage's lock timeout (``savePatience``). When storing still fails, the token is returned all the same, and
    /// the failure is a warning in the log and in the result's metadata (``MSALResultMetadata/cacheWriteFailure``).
    ///
    /// - Returns: whether the token was stored.
    func storeObtainedToken(log: MSALLog, _ body: (TokenCacheDocument) throws -> Void) -> Bool {
        do {
            try save(patience: Self.savePatience, log: log, body)
            return true
        } catch {
            let reason = (error as? MSALErrorInfo)?.errorDescription ?? "\(error)"
            log.warning("The token obtained was NOT saved to the token cache (\(reason)). It is returned, but the next "
                        + "request will not find it, and the user may have to sign in again.")
            RequestDiagnostics.current?.noteCacheWriteFailure(reason)
            return false
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

/// An in-process lock per key: callers with the same key run one at a time, in the order they came.
actor KeyedTurns {
    /// The keys held, each with the callers waiting for it.
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ key: String) async {
        guard waiting[key] != nil else {
            waiting[key] = []
            return
        }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    func release(_ key: String) {
        guard var queue = waiting[key] else { return }
        if queue.isEmpty {
            waiting[key] = nil
        } else {
            let next = queue.removeFirst()
            waiting[key] = queue
            next.resume()
        }
    }
}
