import Foundation

/// What token acquisition needs from a token cache: the engine's one way in, whatever the cache is.
///
/// Two kinds of cache implement it:
/// - ``DocumentCachePort``: one unified cache document in any ``MSALTokenCacheStorage`` (a file, the Secret
///   Service, memory), shared by every call of an application;
/// - ``PartitionCachePort``: one partition of a partitioned cache (``MSALPartitionedCacheConfig``), opened for one
///   public call.
///
/// Reads need no await: a port is opened with its document current (a partition is read from its storage when the
/// call opens it). Everything that sends a token request runs inside ``withTokenRequest(key:timeout:_:)``, which
/// holds whatever makes that request the only one for its token: the callers of this process with the same key take
/// turns, and the storage's own lock (the cross-process refresh lock of a file cache, the cross-instance lock of a
/// partition) is held; a partition is read again under it, and what the request stored is written back before the
/// lock is released.
protocol TokenCachePort: AnyObject, Sendable {
    /// Runs `body` on the current document. The time it takes counts as cache time of the running call.
    func read<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T

    /// ``read(_:)`` without counting the time as the running call's cache time (for a caller that times itself: a
    /// remembered cache hit, which has no measured call around it).
    func readUntimed<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T

    /// Changes the cache outside a token request (a sign-out, a removal) and persists the change.
    func update<T: Sendable>(_ body: @Sendable (TokenCacheDocument) throws -> T) async throws -> T

    /// Stores a token just obtained. It is never dropped because the cache is busy; when it cannot be stored, the
    /// failure is a warning in `log` and in the result's metadata, and false is returned.
    func storeObtainedToken(log: MSALLog, _ body: @Sendable (TokenCacheDocument) throws -> Void) async -> Bool

    /// Runs `body` as the one token request for `key` (see the type's description), waiting at most `timeout`
    /// seconds for another process's or instance's request for the same key.
    func withTokenRequest<T: Sendable>(key: String, timeout: TimeInterval,
                                       _ body: @Sendable () async throws -> T) async throws -> T

    /// Notes that a token request is about to be sent (for the cache's counters).
    func noteTokenRequest()
}

extension TokenCachePort {
    func noteTokenRequest() {}
}
