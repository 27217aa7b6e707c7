import Foundation

/// The partitioned token cache of one confidential client application: partitions in memory (L1, least recently
/// used out) in front of an ``MSALPartitionedTokenCacheStorage`` (L2).
///
/// A public call opens the port of its partition (``port(_:)``): from memory, or read from the storage. A token
/// request runs under the partition's lock, on the partition as stored then, and what it stores is written back
/// (compare-and-set on the version) before the lock is released (``PartitionCachePort``). Storage failures are
/// logged and counted, and the call goes on from memory or with a direct token request.
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

    // MARK: Ports

    /// The port of `partition` for one call, when the partition is in memory and needs no storage read (no I/O);
    /// else nil.
    func memoryPort(_ partition: String) -> PartitionCachePort? {
        guard let slot = memorySlot(partition) else { return nil }
        count { $0.l1Hits += 1 }
        return PartitionCachePort(slot: slot, cache: self)
    }

    /// The port of `partition` for one call: from memory when it is there and current, else read from the storage
    /// (bounded; when the storage fails, the call is served from memory or with a direct token request).
    func port(_ partition: String) async -> PartitionCachePort {
        if let port = memoryPort(partition) { return port }
        let remembered = memory.withLock { $0.get(partition) }
        let slot = remembered ?? PartitionSlot(partition: partition, document: TokenCacheDocument(), version: nil,
                                                bytes: 0, writable: false, failedAt: clock.now())
        await refreshFromStorage(slot)
        remember(slot)
        return PartitionCachePort(slot: slot, cache: self)
    }

    /// The slot of `partition` if it is in memory and needs no storage read, else nil (no I/O).
    private func memorySlot(_ partition: String) -> PartitionSlot? {
        guard let slot = memory.withLock({ $0.get(partition) }) else { return nil }
        if slot.withDocument({ _ in slot.reloadNeeded }) { return nil }
        if let failedAt = slot.withDocument({ _ in slot.failedAt }),
           clock.now().timeIntervalSince(failedAt) >= config.retryInterval { return nil }
        return slot
    }

    /// Takes `partition`'s cross-instance lock; nil when the storage failed (the call goes on without it, as it
    /// goes on without the storage). A lock held too long elsewhere is a typed timeout.
    func lock(_ partition: String, correlationId: UUID?) async throws -> PartitionLockHolder? {
        do {
            return try await PartitionLockHolder.acquire(storage, partition: partition, timeout: config.lockTimeout,
                                                         bound: config.lockTimeout + config.storageTimeout)
        } catch let error as MSALPartitionedCacheError where error.kind == .lockTimeout {
            count { $0.lockTimeouts += 1 }
            throw MSALErrorInfo.internal(
                .internalErrorUnexpected,
                "The token cache partition stayed locked by another instance for \(config.lockTimeout) s; no token request was sent.",
                correlationId: correlationId, underlyingError: MSALPartitionedCacheError(.lockTimeout, "partition lock timeout"))
        } catch {
            storageFailed(error, partition: partition, doing: "lock")
            return nil
        }
    }

    // MARK: Memory and storage

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
    func writeBack(_ slot: PartitionSlot) async {
        guard slot.pendingWrite() != nil else { return }
        await slot.writeMutex.withLock {
            guard let pending = slot.pendingWrite() else { return }
            guard pending.writable else {
                log.warning("A token cache partition changed but is not written: its stored state could not be read.")
                return
            }
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
