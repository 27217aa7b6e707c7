public import Foundation
public import MSALCore

/// A clock a test moves by hand (``MSALClock``): token expiry, retries, back-off and polling then follow the test's
/// time, not the machine's, and no test waits for real time to pass.
///
/// How the library's sleeps behave is chosen when the clock is made:
/// - ``Sleeps/advanceTime`` (the default): a sleep moves the clock forward by its length and returns at once, as if
///   the time had passed. Flows that retry or poll run to their end immediately, and their times are exact.
/// - ``Sleeps/waitForAdvance``: a sleep waits until the test moves the clock past its end (``advance(_:)``). The
///   test sees each pause (``sleepers``, ``waitForSleepers(_:)``) and decides when it ends.
public final class MSALTestClock: MSALClock, @unchecked Sendable {
    /// What a sleep on the clock does.
    public enum Sleeps: Sendable {
        /// The clock moves forward by the sleep's length, and the sleep returns at once.
        case advanceTime
        /// The sleep waits until the test moves the clock past its end.
        case waitForAdvance
    }

    private struct Sleeper {
        var id: UUID
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current: Date
    private var sleeping: [Sleeper] = []
    private var sleeperWatchers: [(id: UUID, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Waits whose bound passed before they were registered.
    private var expiredWatchers: Set<UUID> = []
    private let mode: Sleeps

    /// A clock at `start` whose sleeps behave as `sleeps` says.
    public init(_ start: Date = Date(), sleeps: Sleeps = .advanceTime) {
        current = start
        mode = sleeps
    }

    public func now() -> Date { lock.withLock { current } }

    /// The tasks sleeping on the clock now (``Sleeps/waitForAdvance``).
    public var sleepers: Int { lock.withLock { sleeping.count } }

    /// Moves the clock by `seconds`, and ends the sleeps whose end it passed.
    public func advance(_ seconds: TimeInterval) {
        lock.lock()
        current = current.addingTimeInterval(seconds)
        let now = current
        let due = sleeping.filter { $0.deadline <= now }
        sleeping.removeAll { $0.deadline <= now }
        lock.unlock()
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        let length = seconds.isFinite ? max(0, seconds) : 0
        if mode == .advanceTime {
            lock.withLock { current = current.addingTimeInterval(length) }
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let deadline = current.addingTimeInterval(length)
                if deadline <= current {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                sleeping.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                let ready = sleeperWatchers.filter { $0.count <= sleeping.count }
                sleeperWatchers.removeAll { $0.count <= sleeping.count }
                lock.unlock()
                for watcher in ready { watcher.continuation.resume() }
            }
        } onCancel: {
            lock.lock()
            let cancelled = sleeping.first { $0.id == id }
            sleeping.removeAll { $0.id == id }
            lock.unlock()
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Waits until at least `count` tasks sleep on the clock (``Sleeps/waitForAdvance``), or until `seconds` of
    /// real time passed, whichever comes first; returns whether they do.
    @discardableResult
    public func waitForSleepers(_ count: Int, within seconds: TimeInterval = 30) async -> Bool {
        let id = UUID()
        // The bound ends this wait only: a wait that returned earlier (its bound cancelled) never ends a later one.
        let bound = Task {
            guard (try? await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 3600)) * 1_000_000_000))) != nil else { return }
            releaseWatcher(id)
        }
        defer { bound.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if sleeping.count >= count || expiredWatchers.remove(id) != nil {
                lock.unlock()
                continuation.resume()
            } else {
                sleeperWatchers.append((id, count, continuation))
                lock.unlock()
            }
        }
        return sleepers >= count
    }

    private func releaseWatcher(_ id: UUID) {
        let watcher = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard let index = sleeperWatchers.firstIndex(where: { $0.id == id }) else {
                expiredWatchers.insert(id)
                return nil
            }
            return sleeperWatchers.remove(at: index).continuation
        }
        watcher?.resume()
    }
}
