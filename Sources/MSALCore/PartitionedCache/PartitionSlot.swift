import Foundation

/// One partition of a partitioned token cache held in memory (L1): its document, the stored version the document
/// was read from or written as, and what of it is not yet stored.
///
/// The document is swapped (not edited) when a newer stored version is read, so every reader takes it under
/// ``lock``. ``writeMutex`` orders the writes of concurrent calls on the partition within the process.
final class PartitionSlot: @unchecked Sendable {
    let partition: String
    let lock = NSLock()
    /// Orders writes (and lock-taking) of the calls of this process on the partition.
    let writeMutex = AsyncMutex()
    /// Orders the calls of this process that take the partition's cross-instance lock.
    let networkMutex = AsyncMutex()

    // Guarded by `lock`.
    private(set) var document: TokenCacheDocument
    /// The stored version `document` reflects; nil when no row was stored.
    private(set) var version: Int64?
    /// The document object and change count last stored (or read): the document is dirty when they differ.
    private var persistedDocument: ObjectIdentifier
    private var persistedChangeCount: Int
    /// False when the stored partition could not be read: it is then never overwritten.
    private(set) var writable: Bool
    /// When the last storage read failed (the partition is read again after the retry interval).
    private(set) var failedAt: Date?
    /// The size of the serialized document when last read or written.
    private(set) var bytes: Int
    /// Another instance wrote a newer version: the next call reads the partition again (into this same slot, so
    /// that the calls of this process on the partition keep sharing one slot and its locks).
    private(set) var reloadNeeded = false

    init(partition: String, document: TokenCacheDocument, version: Int64?, bytes: Int, writable: Bool,
         failedAt: Date? = nil) {
        self.partition = partition
        self.document = document
        self.version = version
        self.persistedDocument = ObjectIdentifier(document)
        self.persistedChangeCount = document.changeCount
        self.writable = writable
        self.failedAt = failedAt
        self.bytes = bytes
    }

    /// Runs `body` on the document under the slot's lock.
    func withDocument<T>(_ body: (TokenCacheDocument) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(document)
    }

    /// What identifies the partition's state now: the stored version, the document object and its change count.
    struct Snapshot: Equatable {
        var version: Int64?
        var document: ObjectIdentifier
        var changeCount: Int
    }

    func snapshot() -> Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return Snapshot(version: version, document: ObjectIdentifier(document), changeCount: document.changeCount)
    }

    /// Replaces the document with a stored one (read from the storage).
    func replace(with newDocument: TokenCacheDocument, version newVersion: Int64?, bytes newBytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        document = newDocument
        version = newVersion
        persistedDocument = ObjectIdentifier(newDocument)
        persistedChangeCount = newDocument.changeCount
        bytes = newBytes
        writable = true
        failedAt = nil
        reloadNeeded = false
    }

    /// Records that the stored version is the one in memory (a read found it unchanged).
    func confirmCurrent() {
        lock.lock()
        defer { lock.unlock() }
        reloadNeeded = false
    }

    /// Keeps the document when the storage still has no row and the document is the unchanged one read as absent
    /// (nothing to reload: keeping it keeps the view of the calls that read it current); false otherwise.
    func confirmStillAbsent() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard version == nil, failedAt == nil, ObjectIdentifier(document) == persistedDocument,
              document.changeCount == persistedChangeCount else { return false }
        reloadNeeded = false
        return true
    }

    /// Records that a newer version was stored elsewhere (unless `newVersion` is the one in memory).
    func markReloadNeeded(unless newVersion: Int64?) {
        lock.lock()
        defer { lock.unlock() }
        if newVersion == nil || newVersion != version { reloadNeeded = true }
    }

    /// Replaces the document with one that is not stored yet (a merge): the next write-back stores it.
    func replaceUnstored(with newDocument: TokenCacheDocument) {
        lock.lock()
        defer { lock.unlock() }
        document = newDocument
    }

    /// The serialized document and its change count when it changed since it was last stored, else nil.
    func pendingWrite() -> (data: Data, document: TokenCacheDocument, changeCount: Int, expected: Int64?, writable: Bool)? {
        lock.lock()
        defer { lock.unlock() }
        guard ObjectIdentifier(document) != persistedDocument || document.changeCount != persistedChangeCount else {
            return nil
        }
        return (document.serialize(), document, document.changeCount, version, writable)
    }

    /// Records a successful write of `document` at `changeCount` as `newVersion`.
    func stored(_ written: TokenCacheDocument, changeCount: Int, version newVersion: Int64, bytes newBytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        version = newVersion
        persistedDocument = ObjectIdentifier(written)
        persistedChangeCount = changeCount
        bytes = newBytes
    }

    /// Records that the storage could not be read: the slot serves from memory and is not written.
    func markUnavailable(at date: Date, unreadable: Bool) {
        lock.lock()
        defer { lock.unlock() }
        failedAt = date
        if unreadable { writable = false }
    }
}

/// The partitions in memory, least recently used first out, bounded by count and by bytes.
struct PartitionLRU {
    private final class Node {
        let slot: PartitionSlot
        var bytes: Int
        var newer: Node?
        weak var older: Node?
        init(_ slot: PartitionSlot, bytes: Int) { self.slot = slot; self.bytes = bytes }
    }

    private var nodes: [String: Node] = [:]
    private var newest: Node?
    private var oldest: Node?
    private(set) var totalBytes = 0
    var count: Int { nodes.count }

    /// The slot of `partition`, marked most recently used.
    mutating func get(_ partition: String) -> PartitionSlot? {
        guard let node = nodes[partition] else { return nil }
        moveToNewest(node)
        return node.slot
    }

    /// Inserts (or replaces) a slot and drops the least recently used ones beyond the limits; returns how many
    /// were dropped.
    mutating func insert(_ slot: PartitionSlot, maxCount: Int, maxBytes: Int) -> Int {
        remove(slot.partition)
        let node = Node(slot, bytes: slot.bytes)
        nodes[slot.partition] = node
        totalBytes += node.bytes
        link(node)
        var dropped = 0
        while nodes.count > max(1, maxCount) || (totalBytes > maxBytes && nodes.count > 1), let victim = oldest,
              victim !== node {
            remove(victim.slot.partition)
            dropped += 1
        }
        return dropped
    }

    /// Updates the byte size recorded for `partition`.
    mutating func resize(_ partition: String, bytes: Int) {
        guard let node = nodes[partition] else { return }
        totalBytes += bytes - node.bytes
        node.bytes = bytes
    }

    /// Removes `partition`; returns its slot.
    @discardableResult
    mutating func remove(_ partition: String) -> PartitionSlot? {
        guard let node = nodes.removeValue(forKey: partition) else { return nil }
        unlink(node)
        totalBytes -= node.bytes
        return node.slot
    }

    private mutating func link(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private mutating func unlink(_ node: Node) {
        if let older = node.older { older.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { newer.older = node.older } else { newest = node.older }
        node.newer = nil
        node.older = nil
    }

    private mutating func moveToNewest(_ node: Node) {
        guard newest !== node else { return }
        unlink(node)
        link(node)
    }
}
