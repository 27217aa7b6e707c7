public import Foundation

/// What ``MSALPartitionedTokenCacheStorage/read(partition:knownVersion:)`` found for a partition.
public enum MSALPartitionedCacheRead: Sendable, Equatable {
    /// No row is stored for the partition.
    case absent
    /// The stored version is the `knownVersion` the caller passed: its copy is current (no data was sent).
    case unchanged
    /// The partition's serialized cache document (the unified JSON format) and its version.
    case found(data: Data, version: Int64)
}

/// An error of an ``MSALPartitionedTokenCacheStorage`` that MSAL handles in its own way. Its description never
/// holds a token, a secret or a key.
public struct MSALPartitionedCacheError: Error, Sendable, CustomStringConvertible {
    /// The kinds of error MSAL tells apart.
    public enum Kind: Sendable, Equatable {
        /// ``MSALPartitionedTokenCacheStorage/write(partition:data:expiresOn:expectedVersion:)`` found another
        /// version than the expected one: someone else wrote the partition first. Nothing was written.
        case versionConflict
        /// The partition's lock was still held by someone else when the timeout passed.
        case lockTimeout
        /// The stored partition cannot be read (unknown key id, truncated data, failed authentication tag). MSAL
        /// does not overwrite it: it serves the request with a direct token request and logs a warning.
        case unreadable
    }

    /// What went wrong.
    public var kind: Kind
    /// A description for logs: never a token, a secret, a key or a partition's data.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// A token cache stored in partitions, each one a small unified cache document, for server applications that
/// run many instances (``MSALConfidentialClientApplication`` with ``MSALPartitionedCacheConfig``).
///
/// Partitions follow the keys MSAL.NET suggests for distributed caches: a user's tokens under their home account
/// id, an application's own tokens under `<clientId>_<tenant>`, on-behalf-of tokens under the hash of the incoming
/// assertion. MSAL reads one partition per public call and keeps it in memory (L1); the storage is the shared
/// second level (L2).
///
/// Every stored partition has a version that changes with every write. MSAL writes with the version it read
/// (compare-and-set), so a write never silently replaces another instance's: a mismatch is
/// ``MSALPartitionedCacheError/Kind/versionConflict``. The data holds refresh tokens: store it encrypted and
/// never log it. Implementations must be thread-safe and should bound the time of every call.
public protocol MSALPartitionedTokenCacheStorage: Sendable {
    /// The stored document of `partition`; ``MSALPartitionedCacheRead/unchanged`` when its version is still
    /// `knownVersion` (the storage may then skip sending the data).
    ///
    /// Throws ``MSALPartitionedCacheError`` of kind ``MSALPartitionedCacheError/Kind/unreadable`` when the stored
    /// data cannot be decrypted or authenticated, and any error when the storage cannot be reached.
    func read(partition: String, knownVersion: Int64?) async throws -> MSALPartitionedCacheRead

    /// Stores `data` (a serialized cache document) for `partition` if the stored version is still
    /// `expectedVersion` (nil: no row may exist yet), and returns the new version.
    ///
    /// `expiresOn` is when the last useful token of the partition expires: after it the partition may be deleted.
    func write(partition: String, data: Data, expiresOn: Date, expectedVersion: Int64?) async throws -> Int64

    /// Runs `body` while holding `partition`'s exclusive lock, shared by every instance that uses the storage.
    ///
    /// Throws ``MSALPartitionedCacheError`` of kind ``MSALPartitionedCacheError/Kind/lockTimeout`` when the lock is
    /// not acquired within `timeout` seconds. The lock is released when `body` returns or throws, and when the
    /// calling task is cancelled.
    func withPartitionLock<T: Sendable>(partition: String, timeout: TimeInterval,
                                        _ body: () async throws -> T) async throws -> T

    /// Registers `handler` to be called when a partition was written, with the partition and the version written,
    /// so that in-memory copies of older versions can be dropped; with nil (and nil) when notifications may have
    /// been missed (after a reconnection), so that every in-memory copy is dropped. Storages without change
    /// notifications never call it.
    func addInvalidationHandler(_ handler: @escaping @Sendable (_ partition: String?, _ version: Int64?) -> Void)
}
