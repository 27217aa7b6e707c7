// Replaced by the cache storage implementation.
public protocol MSALTokenCacheStorage: Sendable {}
