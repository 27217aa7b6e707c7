import CMSALCurl
import Foundation
import MSALSupport

/// One libcurl worker (an easy handle in a multi handle of its own, which keeps its connections), owned by Swift.
final class CurlWorker: @unchecked Sendable {
    let raw: OpaquePointer

    /// A new worker; throws when libcurl cannot be loaded or the handles cannot be made.
    init() throws {
        var reason = [CChar](repeating: 0, count: 256)
        guard msal_curl_load(&reason, reason.count) == 0 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw HTTPTransportError(.other, "The HTTP transport needs libcurl: \(text).")
        }
        guard let raw = msal_curl_worker_create() else {
            throw HTTPTransportError(.other, "libcurl could not make a transfer handle (out of memory).")
        }
        self.raw = raw
    }

    deinit { msal_curl_worker_destroy(raw) }
}

/// The idle workers of one transport. A request takes one (or makes one), and gives it back when done, so that the
/// next request reuses its connections; at most ``maximumIdle`` are kept, and a worker idle for the transport's idle
/// timeout is released (its connections closed) by a sweep scheduled while any worker is idle.
final class CurlWorkerPool: Sendable {
    static let maximumIdle = 16

    private struct Idle {
        let worker: CurlWorker
        let since: ContinuousClock.Instant
    }

    private struct State {
        var idle: [Idle] = []
        var shutDown = false
        var sweepScheduled = false
    }

    private let state = LockedBox(State())
    private let idleTimeout: Duration

    /// A pool whose workers are released after `idleSeconds` (0 to an hour) without use.
    init(idleSeconds: Double) {
        idleTimeout = .milliseconds(Int64(idleSeconds * 1000))
    }

    /// The workers kept for reuse.
    var idleCount: Int { state.withLock { $0.idle.count } }

    /// An idle worker, or a new one. Throws ``HTTPTransportError/Kind/shutDown`` after ``shutdown()``.
    func take() throws -> CurlWorker {
        let reused: CurlWorker? = try state.withLock { state in
            if state.shutDown { throw HTTPTransportError(.shutDown, "The HTTP transport was shut down.") }
            return state.idle.popLast()?.worker
        }
        return try reused ?? CurlWorker()
    }

    /// Keeps `worker` for the next request; after shutdown, or with enough kept, it is released (its connections
    /// closed).
    func giveBack(_ worker: CurlWorker, now: ContinuousClock.Instant = .now) {
        let schedule = state.withLock { state -> Bool in
            guard !state.shutDown, state.idle.count < Self.maximumIdle else { return false }
            state.idle.append(Idle(worker: worker, since: now))
            defer { state.sweepScheduled = true }
            return !state.sweepScheduled
        }
        if schedule { scheduleSweep() }
    }

    /// Releases the workers idle for the idle timeout at `now`; the others wait for the next sweep.
    func sweep(now: ContinuousClock.Instant) {
        let (released, again) = state.withLock { state -> ([CurlWorker], Bool) in
            var expired: [CurlWorker] = []
            state.idle.removeAll { idle in
                guard now - idle.since >= idleTimeout else { return false }
                expired.append(idle.worker)
                return true
            }
            state.sweepScheduled = !state.idle.isEmpty && !state.shutDown
            return (expired, state.sweepScheduled)
        }
        _ = released  // released here, outside the lock: closing connections may take a moment
        if again { scheduleSweep() }
    }

    private func scheduleSweep() {
        let delay = Double(idleTimeout.components.seconds) + Double(idleTimeout.components.attoseconds) / 1e18
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + max(delay, 0.01) + 0.05) { [weak self] in
            self?.sweep(now: .now)
        }
    }

    /// Releases the idle workers (closing their connections); workers in use are released when given back.
    func shutdown() {
        let released = state.withLock { state in
            state.shutDown = true
            defer { state.idle = [] }
            return state.idle
        }
        _ = released
    }
}

/// What a cancellation handler needs to stop one transfer, and nothing past its end: the worker goes back to the
/// pool only after ``finish()``, so a late cancellation never reaches the next request on the same worker.
final class CurlCancellation: Sendable {
    private let state: LockedBox<CurlWorker?>

    init(_ worker: CurlWorker) { state = LockedBox(worker) }

    /// Stops the transfer at once (wakes its poll), if it has not finished.
    func cancel() {
        state.withLock { worker in
            if let worker { msal_curl_cancel(worker.raw) }
        }
    }

    /// The transfer has ended: later cancellations do nothing.
    func finish() { state.set(nil) }
}
