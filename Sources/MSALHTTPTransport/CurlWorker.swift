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
/// next request reuses its connections; at most ``maximumIdle`` are kept.
final class CurlWorkerPool: Sendable {
    static let maximumIdle = 16

    private struct State {
        var idle: [CurlWorker] = []
        var shutDown = false
    }

    private let state = LockedBox(State())

    /// An idle worker, or a new one. Throws ``HTTPTransportError/Kind/shutDown`` after ``shutdown()``.
    func take() throws -> CurlWorker {
        let reused: CurlWorker? = try state.withLock { state in
            if state.shutDown { throw HTTPTransportError(.shutDown, "The HTTP transport was shut down.") }
            return state.idle.popLast()
        }
        return try reused ?? CurlWorker()
    }

    /// Keeps `worker` for the next request; after shutdown, or with enough kept, it is released (its connections
    /// closed).
    func giveBack(_ worker: CurlWorker) {
        let kept = state.withLock { state in
            guard !state.shutDown, state.idle.count < Self.maximumIdle else { return false }
            state.idle.append(worker)
            return true
        }
        _ = kept
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
