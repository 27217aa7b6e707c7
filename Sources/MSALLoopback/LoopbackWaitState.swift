import Foundation
import NIOCore

/// The outcome of one listening session, shared by the connection handlers and the waiting task.
///
/// The first outcome wins: a response that arrives before anyone waits is kept until the wait starts.
final class LoopbackWaitState: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<LoopbackRedirect, any Error>?
    private var claimed = false
    private var waiter: CheckedContinuation<LoopbackRedirect, any Error>?
    private var connections: [ObjectIdentifier: any Channel] = [:]
    private var onFinish: [@Sendable () -> Void] = []

    /// Whether an outcome has been recorded.
    var isFinished: Bool { lock.withLock { outcome != nil } }

    /// Reserves the outcome for a matching response that is still being answered; false when another response
    /// already did, or when the wait already ended.
    func claim() -> Bool {
        lock.withLock {
            guard outcome == nil, !claimed else { return false }
            claimed = true
            return true
        }
    }

    /// Records the outcome if none was recorded yet; returns whether this call decided it.
    @discardableResult
    func finish(_ result: Result<LoopbackRedirect, any Error>) -> Bool {
        let (continuation, callbacks): (CheckedContinuation<LoopbackRedirect, any Error>?, [@Sendable () -> Void])
        do {
            lock.lock()
            defer { lock.unlock() }
            guard outcome == nil else { return false }
            outcome = result
            continuation = waiter
            waiter = nil
            callbacks = onFinish
            onFinish = []
        }
        continuation?.resume(with: result)
        for callback in callbacks { callback() }
        return true
    }

    /// Suspends until an outcome is recorded (or returns the one already recorded).
    func wait() async throws -> LoopbackRedirect {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<LoopbackRedirect, any Error>? = lock.withLock {
                if let outcome { return outcome }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Runs `callback` once an outcome is recorded (at once if it already is).
    func whenFinished(_ callback: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { () -> Bool in
            if outcome != nil { return true }
            onFinish.append(callback)
            return false
        }
        if runNow { callback() }
    }

    /// Tracks an accepted connection so it can be closed with the listener.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        lock.withLock { connections[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.connections.removeValue(forKey: id) }
        }
    }

    /// The connections still open.
    var openConnections: [any Channel] { lock.withLock { Array(connections.values) } }
}
