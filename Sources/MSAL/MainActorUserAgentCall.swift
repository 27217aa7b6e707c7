import Foundation
import MSALCore

/// One call to a user agent that works on the main actor (the authentication session, the embedded web view): the
/// calling task waits while `start` runs on the main actor with a `finish` that ends the call the first time it is
/// called (later calls are ignored, whatever thread they come from); cancelling the task calls `cancel` on the main
/// actor, which is expected to finish the call as cancelled.
enum MainActorUserAgentCall {
    typealias Finish = @Sendable (Result<URL, any Error>) -> Void

    /// The error when the user agent is already showing another sign-in (`what` names it).
    static func alreadyRunning(_ what: String, correlationId: UUID) -> MSALErrorInfo {
        .internal(.internalErrorInteractiveSessionAlreadyRunning, "Another \(what) is already running.", correlationId: correlationId)
    }

    /// The error when there is no window to present sign-in over.
    static func noWindow(correlationId: UUID) -> MSALErrorInfo {
        .internal(.internalErrorNoViewController,
                  "There is no window to present sign-in over: pass a view controller whose view is in a window "
                      + "(MSALWebviewParameters(authPresentationViewController:)), or call while a scene is active.",
                  correlationId: correlationId)
    }

    static func run(start: @escaping @MainActor @Sendable (_ finish: @escaping Finish) -> Void,
                    cancel: @escaping @MainActor @Sendable () -> Void) async throws -> URL {
        let resumed = LockedBox(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let finish: Finish = { result in
                    guard resumed.withLock({ done in defer { done = true }; return !done }) else { return }
                    continuation.resume(with: result)
                }
                Task { @MainActor in start(finish) }
            }
        } onCancel: {
            Task { @MainActor in cancel() }
        }
    }
}
