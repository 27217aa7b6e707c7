import Foundation

/// The token cache port of one partition of a partitioned cache, opened for one public call
/// (``PartitionedCache/port(_:)``).
///
/// Reads see the partition's document in memory. A token request (``withTokenRequest(key:timeout:_:)``) is the
/// only one of this process on the partition at a time, and holds the partition's lock across instances; the
/// partition is read again under the lock, so that the request's second look at the cache sees what another
/// instance stored meanwhile, and what the request stores is written back (compare-and-set on the version) before
/// the lock is released. Changes outside a token request (``update(_:)``, a token redeemed before its partition was
/// known) take the same path.
final class PartitionCachePort: TokenCachePort, @unchecked Sendable {
    let slot: PartitionSlot
    let cache: PartitionedCache
    private let lock = NSLock()
    /// Whether this call holds the partition's locks now (a store then goes into memory, written back at the end).
    private var holding = false

    init(slot: PartitionSlot, cache: PartitionedCache) {
        self.slot = slot
        self.cache = cache
    }

    private var isHolding: Bool { lock.withLock { holding } }

    func read<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try RequestDiagnostics.timingCache { try slot.withDocument(body) }
    }

    func readUntimed<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try slot.withDocument(body)
    }

    func update<T: Sendable>(_ body: @Sendable (TokenCacheDocument) throws -> T) async throws -> T {
        try await withTokenRequest(key: "", timeout: cache.config.lockTimeout) { [slot] in
            try RequestDiagnostics.timingCache { try slot.withDocument(body) }
        }
    }

    func storeObtainedToken(log: MSALLog, _ body: @Sendable (TokenCacheDocument) throws -> Void) async -> Bool {
        do {
            try await update(body)
            return true
        } catch {
            DocumentCachePort.noteStoreFailure(error, log: log)
            return false
        }
    }

    func noteTokenRequest() {
        cache.count { $0.tokenRequests += 1 }
    }

    /// Runs `body` holding the partition: first in this process (one call at a time), then across instances; the
    /// partition is brought up to the stored version before `body` runs, and written back after it, before the
    /// locks are released. Within a call that holds them already, `body` just runs.
    func withTokenRequest<T: Sendable>(key: String, timeout: TimeInterval,
                                       _ body: @Sendable () async throws -> T) async throws -> T {
        if isHolding { return try await body() }
        await slot.networkMutex.acquire()
        let holder: PartitionLockHolder?
        do {
            holder = try await cache.lock(slot.partition, correlationId: nil)
        } catch {
            slot.networkMutex.release()
            throw error
        }
        if holder != nil {
            let before = slot.snapshot()
            await cache.refreshFromStorage(slot)
            if slot.snapshot() != before { cache.count { $0.staleReloads += 1 } }
        }
        lock.withLock { holding = true }
        let outcome = await Result { try await body() }
        await cache.writeBack(slot)
        lock.withLock { holding = false }
        if let holder { await holder.release(waitingAtMost: cache.config.storageTimeout) }
        slot.networkMutex.release()
        return try outcome.get()
    }
}
