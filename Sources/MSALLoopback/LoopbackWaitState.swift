import Foundation
import MSALSupport
import NIOCore

/// The outcome of one listening session, shared by the connection handlers and the waiting task.
///
/// The first outcome wins: a response that arrives before anyone waits is kept until the wait starts.
final class LoopbackWaitState: Sendable {
    private struct State {
        var outcome: Result<LoopbackRedirect, any Error>?
        var claimed = false
        var waiter: CheckedContinuation<LoopbackRedirect, any Error>?
        var connections: [ObjectIdentifier: any Channel] = [:]
        var onFinish: [@Sendable () -> Void] = []
        var listeners: [any Channel] = []
    }

    private let state = LockedBox(State())

    /// Whether an outcome has been recorded.
    var isFinished: Bool { state.withLock { $0.outcome != nil } }
    /// Whether a task is suspended waiting for the outcome.
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Reserves the outcome for a matching response that is still being answered; false when another response
    /// already did, or when the wait already ended.
    func claim() -> Bool {
        state.withLock { state in
            guard state.outcome == nil, !state.claimed else { return false }
            state.claimed = true
            return true
        }
    }

    /// Records the outcome if none was recorded yet; returns whether this call decided it.
    @discardableResult
    func finish(_ result: Result<LoopbackRedirect, any Error>) -> Bool {
        let decided = state.withLock { state -> (CheckedContinuation<LoopbackRedirect, any Error>?, [@Sendable () -> Void])? in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            defer { state.waiter = nil; state.onFinish = [] }
            return (state.waiter, state.onFinish)
        }
        guard let (continuation, callbacks) = decided else { return false }
        continuation?.resume(with: result)
        for callback in callbacks { callback() }
        return true
    }

    /// Suspends until an outcome is recorded (or returns the one already recorded).
    func wait() async throws -> LoopbackRedirect {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<LoopbackRedirect, any Error>? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Runs `callback` once an outcome is recorded (at once if it already is).
    func whenFinished(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.outcome != nil { return true }
            state.onFinish.append(callback)
            return false
        }
        if runNow { callback() }
    }

    /// Registers a listening socket: it is closed when the outcome is recorded (at once if it already is).
    func listen(on channel: any Channel) {
        state.withLock { $0.listeners.append(channel) }
        whenFinished { channel.close(promise: nil) }
    }

    /// Succeeds once every listening socket is closed, so a connection can be answered and closed only after the
    /// port it came through is gone: whoever got the answer finds the address closed.
    func listenersClosed(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let listeners = state.withLock { $0.listeners }
        return EventLoopFuture.andAllComplete(listeners.map(\.closeFuture), on: eventLoop)
    }

    /// Tracks an accepted connection so it can be closed with the listener.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.connections[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            self.state.withLock { _ = $0.connections.removeValue(forKey: id) }
        }
    }

    /// The connections still open.
    var openConnections: [any Channel] { state.withLock { Array($0.connections.values) } }
}
