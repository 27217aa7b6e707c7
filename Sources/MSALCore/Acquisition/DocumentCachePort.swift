import Foundation

/// The token cache port of one unified cache document in an ``MSALTokenCacheStorage``: every read and write goes
/// through its lock, so one application's cache is consistent across threads and tasks, and the synchronous account
/// APIs can read it directly. Cross-process consistency comes from the storage's file lock
/// (``TokenCacheStore/update(_:)``); one request per token across processes from its refresh lock
/// (``MSALTokenCacheRefreshLocking``), when it has one.
final class DocumentCachePort: TokenCachePort, @unchecked Sendable {
    private let lock = NSLock()
    private let store: TokenCacheStore
    /// The in-process half of ``withTokenRequest(key:timeout:_:)``.
    private let requestTurns = KeyedTurns()

    init(store: TokenCacheStore) {
        self.store = store
    }

    func read<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try RequestDiagnostics.timingCache { try readUntimed(body) }
    }

    func readUntimed<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(try store.currentDocument())
    }

    /// Runs `body` on the document under the storage lock and persists the result before returning.
    func updateNow<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try RequestDiagnostics.timingCache {
            lock.lock()
            defer { lock.unlock() }
            return try store.update(body)
        }
    }

    func update<T: Sendable>(_ body: @Sendable (TokenCacheDocument) throws -> T) async throws -> T {
        try updateNow(body)
    }

    /// Runs `body` holding the request lock for `key`: first in this process (callers with the same key take turns,
    /// whatever storage the cache has), then the storage's cross-process refresh lock when it has one.
    func withTokenRequest<T: Sendable>(key: String, timeout: TimeInterval,
                                       _ body: @Sendable () async throws -> T) async throws -> T {
        await requestTurns.acquire(key)
        do {
            let value: T
            if let locking = store.storage as? any MSALTokenCacheRefreshLocking {
                value = try await locking.withRefreshLock(key: key, timeout: timeout, body)
            } else {
                value = try await body()
            }
            await requestTurns.release(key)
            return value
        } catch {
            await requestTurns.release(key)
            throw error
        }
    }

    /// Stores under the storage lock (as ``updateNow(_:)``), waiting for the lock past the storage's own lock
    /// timeout: another program may hold a busy shared cache for a long time, and a token the user signed in for
    /// (or a rotated refresh token) must not be dropped because of it. Lock timeouts are retried until `patience`
    /// has passed (the same monotonic time the storage's lock waits are measured in); then the last one is thrown.
    func save<T>(patience: TimeInterval, log: MSALLog, _ body: (TokenCacheDocument) throws -> T) throws -> T {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(max(0, min(patience, 86_400)) * 1000)))
        while true {
            do {
                return try updateNow(body)
            } catch let error as MSALErrorInfo where error.internalCode == .internalErrorTokenCacheLockTimeout {
                guard ContinuousClock.now < deadline else { throw error }
                log.info("The token cache is busy (\(error.errorDescription)); still waiting to store the new token.")
            }
        }
    }

    /// How long storing a token just obtained waits for a busy cache, across lock timeouts (``save(patience:log:_:)``).
    static let savePatience: TimeInterval = 120

    func storeObtainedToken(log: MSALLog, _ body: @Sendable (TokenCacheDocument) throws -> Void) async -> Bool {
        do {
            try save(patience: Self.savePatience, log: log, body)
            return true
        } catch {
            Self.noteStoreFailure(error, log: log)
            return false
        }
    }

    /// The warning for a token that was obtained but could not be stored.
    static func noteStoreFailure(_ error: any Error, log: MSALLog) {
        let reason = (error as? MSALErrorInfo)?.errorDescription ?? "\(error)"
        log.warning("The token obtained was NOT saved to the token cache (\(reason)). It is returned, but the next "
                    + "request will not find it, and the user may have to sign in again.")
        RequestDiagnostics.current?.noteCacheWriteFailure(reason)
    }
}
