public import Foundation

/// A device code sign-in that has started: the code to show the user, and the result to wait for.
///
/// Get one from ``MSALPublicClientApplication/startDeviceCodeFlow(with:)``, show ``deviceCode`` (its
/// ``MSALDeviceCode/message``, or your own text from ``MSALDeviceCode/userCode`` and
/// ``MSALDeviceCode/verificationURI``), then await ``result()``:
///
/// ```swift
/// let flow = try await application.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
/// codeLabel = flow.deviceCode.userCode            // UI state set from your own task
/// let result = try await flow.result()           // polls until the user signs in on another device
/// ```
///
/// Polling starts with the first call to ``result()``, and its first request goes out at once: a user who
/// already signed in on the other device gets the tokens without waiting an interval.
///
/// **Cancellation.** Cancelling a task that awaits ``result()``, or calling ``cancel()``, ends the flow: polling
/// stops at once, no further request is sent, a token answer still on its way is not stored, and every caller of
/// ``result()`` (now or later) gets ``MSALError/userCanceled`` with ``MSALInternalError/internalErrorSessionCanceled``.
/// Start a new flow to try again.
///
/// **Awaiting more than once.** Concurrent and later calls to ``result()`` share the one polling loop and get the
/// same outcome: the same ``MSALResult``, or the same error.
///
/// The flow is `Sendable`: start it in one task and await it in another. It never exposes the device code itself,
/// which is a secret.
public final class MSALDeviceCodeFlow: Sendable, CustomStringConvertible {
    /// What the user needs to sign in: the user code, the verification page, the instructions and the expiry.
    public let deviceCode: MSALDeviceCode
    /// The correlation id of the flow's requests.
    public let correlationId: UUID

    private let poll: @Sendable () async throws -> MSALResult
    private let state = LockedBox(State())

    private struct State {
        var phase = Phase.ready
        var waiters: [Int: CheckedContinuation<MSALResult, any Error>] = [:]
        var nextWaiter = 0
    }

    private enum Phase {
        case ready
        case polling(Task<Void, Never>)
        case finished(Result<MSALResult, any Error>)
    }

    init(deviceCode: MSALDeviceCode, correlationId: UUID, poll: @escaping @Sendable () async throws -> MSALResult) {
        self.deviceCode = deviceCode
        self.correlationId = correlationId
        self.poll = poll
    }

    /// Waits until the user has signed in on the other device, and returns the tokens (stored in the cache like
    /// those of any other sign-in).
    ///
    /// Errors (``MSALErrorInfo``):
    /// - the user declined (`authorization_declined`, `access_denied`): ``MSALError/userCanceled``;
    /// - the code expired (`expired_token`, or its lifetime passed on the client's clock) or was rejected
    ///   (`bad_verification_code`): ``MSALError/internal`` with ``MSALInternalError/internalErrorInvalidGrant``;
    /// - the server could not be reached after several attempts with back-off: ``MSALError/serverError``;
    /// - the flow was cancelled: ``MSALError/userCanceled`` with ``MSALInternalError/internalErrorSessionCanceled``.
    public func result() async throws -> MSALResult {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enqueue(continuation)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the flow: polling stops at once and ``result()`` throws ``MSALError/userCanceled``. Does nothing once
    /// the flow has finished.
    public func cancel() {
        finish(.failure(MSALErrorInfo.cancelled(ErrorBoundary.Operation.deviceCode.rawValue, correlationId: correlationId)))
    }

    /// Whether the flow has ended: with tokens, an error, or cancellation.
    public var isFinished: Bool {
        state.withLock { state in
            if case .finished = state.phase { return true }
            return false
        }
    }

    /// The user code, the verification page and the expiry; never the device code.
    public var description: String {
        "MSALDeviceCodeFlow(\(deviceCode.description), finished: \(isFinished))"
    }

    /// Registers a caller of ``result()``: answers at once when the flow has finished, starts polling on the first
    /// call.
    private func enqueue(_ continuation: CheckedContinuation<MSALResult, any Error>) {
        let known = state.withLock { state -> Result<MSALResult, any Error>? in
            switch state.phase {
            case .finished(let outcome):
                return outcome
            case .ready:
                state.phase = .polling(Task { [self, poll] in
                    do { finish(.success(try await poll())) } catch { finish(.failure(error)) }
                })
            case .polling:
                break
            }
            state.waiters[state.nextWaiter] = continuation
            state.nextWaiter += 1
            return nil
        }
        if let known { continuation.resume(with: known) }
    }

    /// Records the flow's outcome unless it has one already, resumes every caller waiting, and stops polling.
    private func finish(_ outcome: Result<MSALResult, any Error>) {
        let (waiters, task) = state.withLock { state -> ([CheckedContinuation<MSALResult, any Error>], Task<Void, Never>?) in
            var task: Task<Void, Never>?
            switch state.phase {
            case .finished: return ([], nil)
            case .polling(let running): task = running
            case .ready: break
            }
            state.phase = .finished(outcome)
            defer { state.waiters.removeAll() }
            return (Array(state.waiters.values), task)
        }
        task?.cancel()
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
