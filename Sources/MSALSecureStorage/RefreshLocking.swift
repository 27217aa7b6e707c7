public import Foundation
public import MSALCore
import MSALFileStorage

// Token requests single-flight across processes (``MSALTokenCacheRefreshLocking``) for every protected storage:
// each uses the refresh lock file beside its own file (`<file>.refresh-lock`).

extension MSALEncryptedFileTokenCacheStorage: MSALTokenCacheRefreshLocking {
    /// Runs `body` holding the refresh lock named `key` in `<encrypted file>.refresh-lock`.
    public func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                             _ body: @Sendable () async throws -> T) async throws -> T {
        try await file.withRefreshLock(key: key, timeout: timeout, body)
    }
}

extension MSALSecretServiceTokenCacheStorage: MSALTokenCacheRefreshLocking {
    /// Runs `body` holding the refresh lock named `key` in `<signal file>.refresh-lock`.
    public func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                             _ body: @Sendable () async throws -> T) async throws -> T {
        try await signal.withRefreshLock(key: key, timeout: timeout, body)
    }
}

extension MSALSecureTokenCacheStorage: MSALTokenCacheRefreshLocking {
    /// Runs `body` holding the chosen storage's refresh lock, or at once when it has none (memory only).
    public func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                             _ body: @Sendable () async throws -> T) async throws -> T {
        guard let locking = storage as? any MSALTokenCacheRefreshLocking else { return try await body() }
        return try await locking.withRefreshLock(key: key, timeout: timeout, body)
    }
}
