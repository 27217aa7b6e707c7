public import Foundation

/// A token cache storage that can make token requests single-flight across processes.
///
/// When several processes share one cache and find the same expired token at once (a build running many
/// `msal token` commands, an editor and a terminal), MSAL takes the refresh lock named after what it is about to
/// request (the account, authority and scopes of a refresh; the client, tenant and scopes of an app token) before
/// it sends the request. Under the lock it reads the cache again: if another process stored a new token while this
/// one waited, that token is returned and no request is sent. So exactly one process asks the identity provider,
/// and the others use its answer.
///
/// The lock is separate from ``MSALTokenCacheStorage/withExclusiveAccess(_:)`` (which guards each short read-modify-
/// write of the cache): it is held across a network request, and different keys do not wait for each other.
/// Storages that do not adopt this protocol still make requests single-flight within one application object.
public protocol MSALTokenCacheRefreshLocking: Sendable {
    /// Runs `body` while holding the cross-process lock named `key`, waiting at most `timeout` seconds for it.
    ///
    /// The wait polls without blocking a thread and ends early if the task is cancelled. A wait that runs out
    /// throws ``MSALErrorInfo`` with ``MSALInternalError/internalErrorTokenCacheLockTimeout``.
    ///
    /// - Parameters:
    ///   - key: names what is being requested; it may contain secrets' hashes but never a secret, and storages
    ///     must not write it anywhere in clear (a file storage hashes it).
    ///   - timeout: the longest wait for the lock, in seconds.
    ///   - body: runs while the lock is held; the lock is released when it returns or throws.
    func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                      _ body: @Sendable () async throws -> T) async throws -> T
}

extension MSALErrorInfo {
    /// The error for a cross-process cache lock that was not released in time.
    public static func tokenCacheLockTimeout(_ description: String, correlationId: UUID? = nil) -> MSALErrorInfo {
        .internal(.internalErrorTokenCacheLockTimeout, description, correlationId: correlationId)
    }
}
