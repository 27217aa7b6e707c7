import Foundation

/// The one place where errors leave MSAL. Every public entry point runs its body through it, so that an
/// application only ever sees ``MSALErrorInfo``, always with the request's correlation id:
///
/// - an ``MSALErrorInfo`` is kept; its correlation id is filled in when missing;
/// - cancellation (`CancellationError`, `URLError(.cancelled)`, or any foreign error once the task is cancelled)
///   becomes ``MSALError/userCanceled`` with ``MSALInternalError/internalErrorSessionCanceled``;
/// - a `URLError` becomes the one transport error (``MSALErrorInfo/transport(_:host:correlationId:)``);
/// - anything else becomes ``MSALInternalError/internalErrorUnexpected`` with the error as its underlying error.
///
/// Inside the library cancellation travels as `CancellationError`; only this boundary turns it into an
/// ``MSALErrorInfo``.
enum ErrorBoundary {
    /// The public call an error leaves through; it names the call in the cancellation message.
    enum Operation: String, Sendable {
        case interactive = "The interactive sign-in"
        case silent = "The silent token request"
        case deviceCode = "The device code sign-in"
        case signOut = "The sign-out"
        case accounts = "The account lookup"
        case clientCredentials = "The confidential client token request"
        case device = "The device registration request"

        /// Whether the call returns at once when its task is cancelled (see ``ErrorBoundary/run(_:correlationId:_:)``).
        var returnsOnCancel: Bool { self == .silent || self == .deviceCode || self == .clientCredentials || self == .device }
    }

    /// Runs an asynchronous public call.
    ///
    /// For the token calls that share work with other requests (``Operation/silent``: a refresh or an authority
    /// resolution that concurrent requests wait for too; ``Operation/deviceCode``), the call returns as soon as
    /// the calling task is cancelled: `body` is cancelled, and shared work finishes on its own for the requests
    /// still waiting for it. Other calls wait for `body` to end.
    static func run<T: Sendable>(_ operation: Operation, correlationId: UUID,
                                 _ body: @escaping @Sendable () async throws -> T) async throws(MSALErrorInfo) -> T {
        let outcome: Result<T, any Error>
        if operation.returnsOnCancel {
            outcome = await raceCancellation(body)
        } else {
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error): throw map(error, operation, correlationId: correlationId)
        }
    }

    /// The outcome of `body`, or `CancellationError` as soon as the calling task is cancelled.
    private static func raceCancellation<T: Sendable>(
        _ body: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error> {
        let race = Race<T>()
        let task = Task {
            do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { race.wait($0) }
        } onCancel: {
            race.finish(.failure(CancellationError()))
            task.cancel()
        }
    }

    /// Runs a synchronous public call.
    static func runSync<T>(_ operation: Operation, correlationId: UUID,
                           _ body: () throws -> T) throws(MSALErrorInfo) -> T {
        do {
            return try body()
        } catch {
            throw map(error, operation, correlationId: correlationId)
        }
    }

    /// The ``MSALErrorInfo`` an application receives for `error`.
    static func map(_ error: any Error, _ operation: Operation, correlationId: UUID) -> MSALErrorInfo {
        if var info = error as? MSALErrorInfo {
            if info.correlationId == nil { info.correlationId = correlationId }
            return info
        }
        if isCancellation(error) || Task.isCancelled {
            return .cancelled(operation.rawValue, correlationId: correlationId)
        }
        if error is URLError {
            return .transport(error, host: nil, correlationId: correlationId)
        }
        return .unexpected(error, correlationId: correlationId)
    }

    /// Whether `error` reports a cancelled task: `CancellationError`, or `URLError(.cancelled)` from a transport.
    static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? URLError)?.code == .cancelled
    }
}

/// The first outcome of a call and its cancellation; the waiter is resumed exactly once.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var outcome: Result<T, any Error>?
        var waiter: CheckedContinuation<Result<T, any Error>, Never>?
    }

    private let state = LockedBox(State())

    /// Records `result` unless an outcome is already known, and resumes the waiter if it is waiting.
    func finish(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    /// Resumes `continuation` with the outcome, now or when it is known.
    func wait(_ continuation: CheckedContinuation<Result<T, any Error>, Never>) {
        let known = state.withLock { state -> Result<T, any Error>? in
            if state.outcome == nil { state.waiter = continuation }
            return state.outcome
        }
        if let known { continuation.resume(returning: known) }
    }
}
