import Foundation

/// The partition the current public call of a partitioned application works on.
///
/// ``MSALConfidentialClientApplication`` binds it (a task-local value) around the engine call of each public
/// method when the application has a ``MSALPartitionedCacheConfig``. Everything the call reads or writes through
/// ``CacheOwner`` then acts on that partition's in-memory document, and its token requests go through
/// ``PartitionGuardHTTPClient``, which takes the partition's cross-instance lock first. Tasks the call starts
/// (shared refreshes included) inherit the binding; calls of other applications ignore it (it names its owner).
enum PartitionBinding {
    @TaskLocal static var current: PartitionOperation?
}

/// One public call on one partition: the slot it works on, and whether it holds the partition's locks.
final class PartitionOperation: @unchecked Sendable {
    let slot: PartitionSlot
    let cache: PartitionedCache
    /// The ``CacheOwner`` this binding is for.
    let owner: ObjectIdentifier
    /// Token requests need no lock: the call writes a fresh document of its own (an authorization code redemption,
    /// whose partition is known only from the response).
    let unlockedNetwork: Bool

    private let lock = NSLock()
    private var snapshotValue: PartitionSlot.Snapshot
    private var holder: PartitionLockHolder?
    private var holdsNetworkMutex = false
    private var staleValue = false
    private var lockTimedOutValue = false
    private var usedStorageValue = false

    init(slot: PartitionSlot, cache: PartitionedCache, owner: ObjectIdentifier, unlockedNetwork: Bool = false) {
        self.slot = slot
        self.cache = cache
        self.owner = owner
        self.unlockedNetwork = unlockedNetwork
        self.snapshotValue = slot.snapshot()
    }

    /// Whether the call's view of the partition turned out to be outdated when it came to send a token request:
    /// the request was refused, and the call must run again on the current document.
    var isStale: Bool { lock.withLock { staleValue } }
    var lockTimedOut: Bool { lock.withLock { lockTimedOutValue } }
    var usedStorage: Bool { lock.withLock { usedStorageValue } }
    var holdsLock: Bool { lock.withLock { holdsNetworkMutex } }

    func noteStorageUse() { lock.withLock { usedStorageValue = true } }

    /// Whether the slot changed since the current run began (another call reloaded or refreshed it): a failure
    /// of this run may come from a shared request that was refused, and the run is worth repeating.
    var slotChangedSinceAttemptBegan: Bool { lock.withLock { snapshotValue } != slot.snapshot() }

    /// Starts (another) run of the call: what it reads from now on is the slot as it is now.
    func beginAttempt() {
        let now = slot.snapshot()
        lock.withLock {
            snapshotValue = now
            staleValue = false
        }
    }

    /// Called before every token request of the call: takes the partition's locks (in this process, then across
    /// instances) unless held, re-reads the stored partition, and refuses the request (marking the call stale) when
    /// the partition changed since the call read it; the call then runs again with the partition's current tokens.
    func beforeTokenRequest() async throws {
        if unlockedNetwork { return }
        if lock.withLock({ staleValue || lockTimedOutValue }) { throw PartitionRequestRefused() }
        if !holdsLock {
            try await acquireLocks()
        }
        if lock.withLock({ snapshotValue }) != slot.snapshot() {
            lock.withLock { staleValue = true }
            cache.count { $0.staleReloads += 1 }
            throw PartitionRequestRefused()
        }
        cache.count { $0.tokenRequests += 1 }
    }

    /// Takes the locks and brings the slot up to the stored version.
    func acquireLocks() async throws {
        await slot.networkMutex.acquire()
        lock.withLock { holdsNetworkMutex = true }
        noteStorageUse()
        do {
            let holder = try await PartitionLockHolder.acquire(
                cache.storage, partition: slot.partition, timeout: cache.config.lockTimeout,
                bound: cache.config.lockTimeout + cache.config.storageTimeout)
            lock.withLock { self.holder = holder }
        } catch let error as MSALPartitionedCacheError where error.kind == .lockTimeout {
            lock.withLock { lockTimedOutValue = true }
            cache.count { $0.lockTimeouts += 1 }
            throw error
        } catch {
            cache.storageFailed(error, partition: slot.partition, doing: "lock")
            return
        }
        await cache.refreshFromStorage(slot)
    }

    /// Releases whatever locks the call holds.
    func releaseLocks() async {
        let (holder, mutex) = lock.withLock { () -> (PartitionLockHolder?, Bool) in
            defer { self.holder = nil; holdsNetworkMutex = false }
            return (self.holder, holdsNetworkMutex)
        }
        if let holder { await holder.release(waitingAtMost: cache.config.storageTimeout) }
        if mutex { slot.networkMutex.release() }
    }
}

/// A token request refused because the call's view of its partition was outdated (or its lock was not acquired).
struct PartitionRequestRefused: Error, CustomStringConvertible {
    var description: String { "the token request was deferred: the token cache partition changed" }
}
