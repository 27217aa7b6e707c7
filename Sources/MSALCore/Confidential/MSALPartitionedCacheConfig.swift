public import Foundation

/// The partitioned token cache of a ``MSALConfidentialClientApplication``: a shared storage (such as the
/// PostgreSQL cache of `MSALPostgresCache`) and the in-memory level in front of it.
///
/// ```swift
/// config.partitionedCache = MSALPartitionedCacheConfig(storage: postgresCache)
/// ```
///
/// With it, every public call works on exactly one partition of the cache (see
/// ``MSALPartitionedTokenCacheStorage``): the partition is read into memory (L1) when it is not there, a valid
/// cached token is returned from memory with no storage round trip, and a call that needs a token request first
/// takes the partition's lock across instances, re-reads the stored partition when another instance changed it
/// (and then uses that instance's tokens), and writes the new tokens to the storage before it returns.
public struct MSALPartitionedCacheConfig: Sendable {
    /// The shared storage (L2).
    public var storage: any MSALPartitionedTokenCacheStorage
    /// The most bytes of serialized partitions kept in memory; the least recently used are dropped first.
    /// Default 64 MiB.
    public var memoryLimit: Int = 64 << 20
    /// The most partitions kept in memory. Default 100,000.
    public var maxPartitionsInMemory: Int = 100_000
    /// Seconds a call waits for a partition's lock held by another instance before it fails with a timeout
    /// (``MSALErrorInfo`` with an underlying ``MSALPartitionedCacheError`` of kind
    /// ``MSALPartitionedCacheError/Kind/lockTimeout``). Default 10.
    public var lockTimeout: TimeInterval = 10
    /// Seconds a read or write of the storage may take before MSAL goes on without it (a warning is logged and
    /// the call is served from memory or by a direct token request). Default 2.
    public var storageTimeout: TimeInterval = 2
    /// How long a refresh token stays useful after it was last written, which bounds the life of a stored
    /// partition that holds one (its `expiresOn`). Default 90 days, the identity platform's inactivity limit.
    public var refreshTokenLifetime: TimeInterval = 90 * 86_400
    /// Seconds during which a partition whose storage read failed is served from memory before it is read again.
    /// Default 5.
    public var retryInterval: TimeInterval = 5

    /// A configuration with `storage` and default limits.
    public init(storage: any MSALPartitionedTokenCacheStorage) {
        self.storage = storage
    }
}

/// Counters of an application's partitioned token cache, for metrics (``MSALConfidentialClientApplication/partitionedCacheStatistics``).
public struct MSALPartitionedCacheStatistics: Sendable, Equatable {
    /// Calls served from memory with no storage round trip.
    public var l1Hits = 0
    /// Partitions read from the storage and found there.
    public var l2Hits = 0
    /// Partitions read from the storage and not found.
    public var l2Misses = 0
    /// Storage calls that failed or timed out (the call went on without the storage).
    public var l2Errors = 0
    /// Partitions written to the storage.
    public var l2Writes = 0
    /// Writes refused because another instance had written the partition first.
    public var writeConflicts = 0
    /// Token requests sent to the identity provider (refreshes and new tokens).
    public var tokenRequests = 0
    /// Times a call found, after taking the lock, that another instance (or task) had changed the partition, and
    /// used its tokens instead of sending its own request.
    public var staleReloads = 0
    /// Calls that failed because another instance held the partition's lock too long.
    public var lockTimeouts = 0
    /// Partitions dropped from memory because another instance wrote them (change notifications).
    public var invalidations = 0
    /// Partitions dropped from memory to stay within the limits.
    public var evictions = 0
    /// Stored partitions that could not be decrypted or authenticated (never overwritten).
    public var unreadablePartitions = 0
    /// Partitions in memory now.
    public var partitionsInMemory = 0
    /// Bytes of serialized partitions in memory now.
    public var bytesInMemory = 0

    /// All zero.
    public init() {}
}
