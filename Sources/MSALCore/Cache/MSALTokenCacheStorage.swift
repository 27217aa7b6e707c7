public import Foundation

/// Identifies one stored state of a token cache, so that its owner can tell cheaply whether the cache
/// changed since it last read it.
///
/// Two versions are equal only if nothing was written in between (as far as the storage can tell). A file
/// storage builds it from the file's inode, size and modification time; an in-memory storage from a counter.
public struct MSALTokenCacheStorageVersion: Hashable, Sendable {
    /// A storage-defined identity, such as a file's inode number or a write counter.
    public var identity: UInt64
    /// The size of the stored data in bytes.
    public var size: Int64
    /// The modification time in nanoseconds since 1970, or 0 when the storage has none.
    public var modificationTime: Int64

    /// Creates a version from its parts.
    public init(identity: UInt64, size: Int64, modificationTime: Int64) {
        self.identity = identity
        self.size = size
        self.modificationTime = modificationTime
    }
}

/// Where MSAL keeps its unified token cache: the serialized JSON document (the format MSAL for Python,
/// .NET and Node share).
///
/// MSAL calls these methods from one task at a time per client application, but several applications
/// or processes may share a store, so implementations must be thread-safe and should make
/// ``withExclusiveAccess(_:)`` exclude other processes too. MSAL always writes inside
/// ``withExclusiveAccess(_:)``: it checks ``currentVersion()``, reloads with ``read()`` if the version
/// changed, applies its change and calls ``write(_:)``.
///
/// The data holds secrets (refresh tokens): keep it private to the user, and never log it.
public protocol MSALTokenCacheStorage: Sendable {
    /// The version of the stored cache, or nil when nothing is stored. Called before every cache read,
    /// so it must be cheap (one `stat` for a file).
    func currentVersion() throws -> MSALTokenCacheStorageVersion?

    /// The stored cache and its version, or nil when nothing is stored.
    func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)?

    /// Replaces the stored cache, atomically (readers see the old or the new data, never a mix), and
    /// returns the new version.
    func write(_ data: Data) throws -> MSALTokenCacheStorageVersion

    /// Moves stored data that MSAL cannot read out of the way, keeping it for inspection, so that it is
    /// never silently overwritten. Does nothing if the stored version is no longer `version`.
    ///
    /// - Returns: a description of where the data went (for a log message), or nil if nothing was moved.
    func setAside(version: MSALTokenCacheStorageVersion) throws -> String?

    /// Runs `body` while holding the storage's exclusive lock (across processes where possible).
    func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T
}

/// A token cache kept in memory only: tokens are lost when the process ends.
///
/// Several client applications in one process may share an instance; it is thread-safe.
public final class MSALInMemoryTokenCacheStorage: MSALTokenCacheStorage, @unchecked Sendable {
    private struct State {
        var data: Data?
        var generation: UInt64 = 0
        var setAside: [Data] = []
    }

    private let state = LockedBox(State())
    private let accessLock = NSRecursiveLock()

    /// An empty in-memory cache, or one holding `data` (a serialized cache document).
    public init(data: Data? = nil) {
        state.withLock { $0.data = data; $0.generation = data == nil ? 0 : 1 }
    }

    /// The serialized cache document, or nil when nothing was written.
    public var data: Data? { state.get().data }

    /// Data that was set aside because MSAL could not read it, oldest first.
    public var setAsideData: [Data] { state.get().setAside }

    /// The version of the stored data: a write counter and the size; nil when nothing is stored.
    public func currentVersion() throws -> MSALTokenCacheStorageVersion? {
        state.withLock { s in s.data.map { Self.version(s.generation, $0) } }
    }

    /// The stored data and its version, or nil when nothing is stored.
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        state.withLock { s in s.data.map { ($0, Self.version(s.generation, $0)) } }
    }

    /// Replaces the stored data and returns its new version.
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        state.withLock { s in
            s.generation += 1
            s.data = data
            return Self.version(s.generation, data)
        }
    }

    /// Moves unreadable data to ``setAsideData`` if it is still at `version`.
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? {
        state.withLock { s in
            guard let data = s.data, Self.version(s.generation, data) == version else { return nil }
            s.setAside.append(data)
            s.data = nil
            s.generation += 1
            return "kept in memory (setAsideData)"
        }
    }

    /// Runs `body` holding a lock shared by every user of this instance.
    public func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T {
        accessLock.lock()
        defer { accessLock.unlock() }
        return try body()
    }

    private static func version(_ generation: UInt64, _ data: Data) -> MSALTokenCacheStorageVersion {
        MSALTokenCacheStorageVersion(identity: generation, size: Int64(data.count), modificationTime: 0)
    }
}
