import Foundation

/// The partitioned token cache of one confidential client application: partitions in memory (L1, least recently
/// used out) in front of an ``MSALPartitionedTokenCacheStorage`` (L2).
///
/// A public call runs through ``run(_:exclusive:correlationId:_:)``: the partition is taken from memory, or read
/// from the storage; the engine call runs bound to it (``PartitionBinding``); a token request takes the partition's
/// lock and re-reads it first (``PartitionOperation/beforeTokenRequest()``); a call refused because the partition
/// changed runs again on the current document; what changed is written back (compare-and-set on the version)
/// before the call returns, and the lock is released after that. Storage failures are logged and counted, and the
/// call goes on from memory or with a direct token request.
final class PartitionedCache: Sendable {
    let config: MSALPartitionedCacheConfig
    var storage: any MSALPartitionedTokenCacheStorage { config.storage }
    let log: MSALLog
    let clock: any MSALClock
    private let memory = LockedBox(PartitionLRU())
    private let statistics = LockedBox(MSALPartitionedCacheStatistics())

    init(config: MSALPartitionedCacheConfig, log: MSALLog, clock: any MSALClock) {
        self.config = config
        self.log = log
        self.clock = clock
        config.storage.addInvalidationHandler { [weak self] partition, version in
            self?.invalidate(partition, version: version)
        }
    }

    // MARK: Counters

    func count(_ change: (inout MSALPartitionedCacheStatistics) -> Void) { statistics.withLock(change) }

    var currentStatistics: MSALPartitionedCacheStatistics {
        var snapshot = statistics.get()
        memory.withLock { lru in
            snapshot.partitionsInMemory = lru.count
            snapshot.bytesInMemory = lru.totalBytes
        }
        return snapshot
    }

    // MARK: Calls

    /// The slot of `partition` if it is in memory and needs no storage read, else nil (no I/O).
    func memorySlot(_ partition: String) -> PartitionSlot? {
        guard let slot = memory.withLock({ $0.get(partition) }) else { return nil }
        if slot.withDocument({ _ in slot.reloadNeeded }) { return nil }
        if let failedAt = slot.withDocument({ _ in slot.failedAt }),
           clock.now().timeIntervalSince(failedAt) >= config.retryInterval { return nil }
        return slot
    }

    /// Runs `body` synchronously bound to `partition` when it is in memory; nil when it is not (or `body` gives nil).
    func withMemoryPartition<T>(_ partition: String, owner: ObjectIdentifier, _ body: () -> T?) -> T? {
        guard let slot = memorySlot(partition) else { return nil }
        let operation = PartitionOperation(slot: slot, cache: self, owner: owner)
        let value = PartitionBinding.$current.withValue(operation) { body() }
        if value != nil { count { $0.l1Hits += 1 } }
        return value
    }

    /// Runs the engine call `body` on `partition` (see the type's description). `exclusive`: the partition's lock
    /// is taken before `body` runs (calls that change the partition without a token request, such as sign-out).
    func run<T: Sendable>(_ partition: String, exclusive: Bool = false, owner: ObjectIdentifier,
                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let (slot, fromMemory) = await self.slot(for: partition)
        let operation = PartitionOperation(slot: slot, cache: self, owner: owner)
        if !fromMemory { operation.noteStorageUse() }
        do {
            if exclusive { try await operation.acquireLocks() }
            let value = try await attempts(operation, body)
            await writeBack(slot, operation: operation)
            await operation.releaseLocks()
            if !operation.usedStorage { count { $0.l1Hits += 1 } }
            return value
        } catch {
            await writeBack(slot, operation: operation)
            await operation.releaseLocks()
            if operation.lockTimedOut {
                throw MSALErrorInfo.internal(
                    .internalErrorUnexpected,
                    "The token cache partition stayed locked by another instance for \(config.lockTimeout) s; no token request was sent.",
                    underlyingError: MSALPartitionedCacheError(.lockTimeout, "partition lock timeout"))
            }
            throw error
        }
    }

    /// Runs `body` until it ran on a current view of the partition: again when its token request was refused, or
    /// when it failed with a refusal it shared (a request of another call on the partition that it joined), or
    /// failed after the partition changed under it; for at most ``MSALPartitionedCacheConfig/lockTimeout`` (at
    /// least one second), after which the last outcome is returned, except that a run made stale by taking the
    /// lock always gets one more run under it.
    private func attempts<T: Sendable>(_ operation: PartitionOperation,
                                       _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(config.lockTimeout, 1) * 1000))
        var attempt = 0
        var reranUnderLock = false
        while true {
            attempt += 1
            operation.beginAttempt()
            let outcome = await Result { try await PartitionBinding.$current.withValue(operation) { try await body() } }
            // A run refused because taking the lock brought the partition up to date runs once more whatever the
            // time: with the lock held, that run sees the current partition (on slow storage, the first run alone
            // can outlast the deadline).
            if operation.isStale, operation.holdsLock, !operation.lockTimedOut, !reranUnderLock {
                reranUnderLock = true
                continue
            }
            if ContinuousClock.now < deadline, !operation.lockTimedOut {
                if operation.isStale { continue }
                if case .failure(let error) = outcome,
                   (error as? MSALErrorInfo)?.underlyingError is PartitionRequestRefused
                    || operation.slotChangedSinceAttemptBegan {
                    // A refusal shared with a request this call joined: the refused request may stay registered
                    // for a moment, so wait a little before running again.
                    try? await Task.sleep(nanoseconds: UInt64(min(1 << min(attempt, 6), 50)) * 1_000_000)
                    continue
                }
            }
            return try outcome.get()
        }
    }

    /// Runs `body` on a fresh document of its own (an authorization code redemption), then stores what it wrote in
    /// the partition `partition(result)` names, merged into the stored partition under its lock.
    func runThenStore<T: Sendable>(owner: ObjectIdentifier, partition: @escaping @Sendable (T) -> String?,
                                   _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let scratch = PartitionSlot(partition: "", document: TokenCacheDocument(), version: nil, bytes: 0, writable: false)
        let operation = PartitionOperation(slot: scratch, cache: self, owner: owner, unlockedNetwork: true)
        let value = try await PartitionBinding.$current.withValue(operation) { try await body() }
        guard let key = partition(value), let written = scratch.pendingWrite() else { return value }
        let data = written.data
        _ = try await run(key, exclusive: true, owner: owner) {
            guard let merged = try? TokenCacheDocument.merging(data, into: PartitionBinding.current?.slot.withDocument {
                $0.serialize()
            } ?? Data()) else { return false }
            PartitionBinding.current?.slot.replaceUnstored(with: merged)
            return true
        }
        return value
    }

    // MARK: Memory and storage

    /// The partition's slot: from memory when there and current, else read from the storage (bounded); when the
    /// storage fails, an empty (or the remembered) document that is served from memory and not written.
    private func slot(for partition: String) async -> (PartitionSlot, fromMemory: Bool) {
        if let slot = memorySlot(partition) { return (slot, true) }
        let remembered = memory.withLock { $0.get(partition) }
        let slot = remembered ?? PartitionSlot(partition: partition, document: TokenCacheDocument(), version: nil,
                                                bytes: 0, writable: false, failedAt: clock.now())
        await refreshFromStorage(slot)
        remember(slot)
        return (slot, false)
    }

    /// Reads the stored partition if its version differs from the slot's, and puts it in the slot.
    func refreshFromStorage(_ slot: PartitionSlot) async {
        let partition = slot.partition
        let known = slot.withDocument { _ in slot.failedAt == nil ? slot.version : nil }
        let storage = self.storage
        do {
            let read = try await Bounded.run(config.storageTimeout) {
                try await storage.read(partition: partition, knownVersion: known)
            }
            switch read {
            case .unchanged:
                slot.confirmCurrent()
            case .absent:
                count { $0.l2Misses += 1 }
                if !slot.confirmStillAbsent() { slot.replace(with: TokenCacheDocument(), version: nil, bytes: 0) }
            case .found(let data, let version):
                let document = try TokenCacheDocument.parse(data)
                count { $0.l2Hits += 1 }
                slot.replace(with: document, version: version, bytes: data.count)
            }
            memory.withLock { $0.resize(partition, bytes: slot.bytes) }
        } catch let error as MSALPartitionedCacheError where error.kind == .unreadable {
            count { $0.unreadablePartitions += 1; $0.l2Errors += 1 }
            log.warning("A token cache partition cannot be read (\(error.message)); it is left as stored, and the call is served with a direct token request.")
            slot.markUnavailable(at: clock.now(), unreadable: true)
        } catch let error as MSALErrorInfo {
            count { $0.unreadablePartitions += 1; $0.l2Errors += 1 }
            log.warning("A token cache partition is not a cache document (\(error.errorDescription)); it is left as stored.")
            slot.markUnavailable(at: clock.now(), unreadable: true)
        } catch {
            storageFailed(error, partition: partition, doing: "read")
            slot.markUnavailable(at: clock.now(), unreadable: false)
        }
    }

    /// Writes the slot's document if it changed: compare-and-set on the version it was read as.
    private func writeBack(_ slot: PartitionSlot, operation: PartitionOperation) async {
        guard slot.pendingWrite() != nil else { return }
        await slot.writeMutex.withLock {
            guard let pending = slot.pendingWrite() else { return }
            guard pending.writable else {
                log.warning("A token cache partition changed but is not written: its stored state could not be read.")
                return
            }
            operation.noteStorageUse()
            let expiresOn = pending.document.usefulUntil(now: clock.now(),
                                                         refreshTokenLifetime: config.refreshTokenLifetime)
            let (storage, partition, data, expected) = (self.storage, slot.partition, pending.data, pending.expected)
            do {
                let version = try await Bounded.run(config.storageTimeout) {
                    try await storage.write(partition: partition, data: data, expiresOn: expiresOn,
                                            expectedVersion: expected)
                }
                slot.stored(pending.document, changeCount: pending.changeCount, version: version, bytes: data.count)
                memory.withLock { $0.resize(partition, bytes: data.count) }
                count { $0.l2Writes += 1 }
            } catch let error as MSALPartitionedCacheError where error.kind == .versionConflict {
                count { $0.writeConflicts += 1 }
                log.warning("Another instance wrote a token cache partition first; this instance's change is dropped and the partition is read again on next use.")
                slot.markReloadNeeded(unless: nil)
            } catch {
                storageFailed(error, partition: partition, doing: "write")
            }
        }
    }

    private func remember(_ slot: PartitionSlot) {
        let dropped = memory.withLock {
            $0.insert(slot, maxCount: config.maxPartitionsInMemory, maxBytes: config.memoryLimit)
        }
        if dropped > 0 { count { $0.evictions += dropped } }
    }

    /// Marks `partition` for a re-read when another instance wrote `version` (a change notification); drops every
    /// partition from memory when `partition` is nil (notifications may have been missed).
    func invalidate(_ partition: String?, version: Int64?) {
        guard let partition else {
            let dropped = memory.withLock { lru -> Int in
                let count = lru.count
                lru = PartitionLRU()
                return count
            }
            count { $0.invalidations += dropped }
            return
        }
        guard let slot = memory.withLock({ $0.get(partition) }) else { return }
        if slot.withDocument({ _ in slot.version }) == version { return }
        slot.markReloadNeeded(unless: version)
        count { $0.invalidations += 1 }
    }

    /// Counts and logs a failed storage call (never with a secret; the partition is named by a short hash).
    func storageFailed(_ error: any Error, partition: String, doing: String) {
        count { $0.l2Errors += 1 }
        let kind = error is StorageTimeout ? "\(error)" : "\(type(of: error))"
        log.warning("Token cache storage \(doing) failed (\(kind)); the call goes on without it.")
    }
}
