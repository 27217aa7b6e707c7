import Foundation

/// The broker request waiting for Microsoft Authenticator's answer, process-wide: the answer comes back through the
/// app (`application(_:open:options:)`, or a scene's `UIOpenURLContext`), which hands its URL to
/// ``MSALPublicClientApplication/handleMSALResponse(_:sourceApplication:)``. One at a time, as in MSAL for iOS/macOS.
final class AuthenticatorSessions: Sendable {
    static let process = AuthenticatorSessions()

    private struct Pending {
        var resume: AuthenticatorResumeState
        var key: Data
        var continuation: CheckedContinuation<[String: String], any Error>
        /// The app came back to the foreground since the request was opened.
        var returned = false
    }
    private let pending = LockedBox<Pending?>(nil)

    /// UIKit's notifications that tell the app came back from the broker (`UIApplication.willEnterForegroundNotification`,
    /// `didBecomeActiveNotification`), by their raw names, so that this platform-free code observes them wherever
    /// UIKit posts them.
    static let willEnterForeground = NSNotification.Name("UIApplicationWillEnterForegroundNotification")
    static let didBecomeActive = NSNotification.Name("UIApplicationDidBecomeActiveNotification")

    /// Sessions observing `center` for the app's return (the process's: the default center).
    init(center: NotificationCenter = .default) {
        // As MSAL for iOS/macOS's common core (`MSIDBrokerInteractiveController.m:382-464`): the broker's answer is
        // opened between the app's entering the foreground and its becoming active; a request still waiting when the
        // app is active again was abandoned in the broker (the user came back without an answer), and ends with
        // `internalErrorBrokerResponseNotReceived`, so that the next sign-in can start.
        _ = center.addObserver(forName: Self.willEnterForeground, object: nil, queue: nil) { [weak self] _ in
            self?.pending.withLock { $0?.returned = true }
        }
        _ = center.addObserver(forName: Self.didBecomeActive, object: nil, queue: nil) { [weak self] _ in
            self?.failAbandoned()
        }
    }

    /// Ends a request the app came back from without an answer.
    private func failAbandoned() {
        let abandoned = pending.withLock { slot -> Pending? in
            guard let current = slot, current.returned else { return nil }
            slot = nil
            return current
        }
        guard let abandoned else { return }
        abandoned.continuation.resume(throwing: MSALErrorInfo.internal(
            .internalErrorBrokerResponseNotReceived, "The application did not receive a response from the broker.",
            correlationId: abandoned.resume.correlationId))
    }
    /// The applications that may take an answer no request waits for (one that arrives after the app was
    /// relaunched), each held weakly: its handler says whether it took the URL.
    private let orphanHandlers = LockedBox<[(owner: WeakOwner, take: @Sendable (URL, String?) -> Bool)]>([])

    /// A weak reference to an application's engine.
    final class WeakOwner: @unchecked Sendable {
        weak var owner: AnyObject?
        init(_ owner: AnyObject) { self.owner = owner }
    }

    /// Registers `owner`'s handler of answers no request waits for, for as long as `owner` lives.
    func registerOrphanHandler(owner: AnyObject, _ take: @escaping @Sendable (URL, String?) -> Bool) {
        orphanHandlers.withLock { handlers in
            handlers.removeAll { $0.owner.owner == nil }
            handlers.append((WeakOwner(owner), take))
        }
    }

    /// Whether a request waits for its answer.
    var isWaiting: Bool { pending.get() != nil }

    /// The error that says the broker app could not be opened (the caller signs in with its web view).
    static func notOpened(_ correlationId: UUID) -> MSALErrorInfo {
        .internal(.internalBrokerNotAvailable, "The broker app could not be opened.", correlationId: correlationId)
    }

    /// Opens the request (`open`) and waits for its answer's checked fields. Cancelling the task ends the wait with
    /// ``MSALError/userCanceled``; a request that could not be opened ends it with
    /// ``MSALInternalError/internalBrokerNotAvailable``.
    func run(_ resume: AuthenticatorResumeState, key: Data,
             open: @escaping @Sendable () async -> Bool) async throws -> [String: String] {
        let nonce = resume.brokerNonce
        let canceled = MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                                     description: "The broker request was cancelled.", correlationId: resume.correlationId)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String: String], any Error>) in
                let taken = pending.withLock { slot -> Bool in
                    guard slot == nil else { return false }
                    slot = Pending(resume: resume, key: key, continuation: continuation)
                    return true
                }
                guard taken else {
                    continuation.resume(throwing: MSALErrorInfo.internal(
                        .internalErrorInteractiveSessionAlreadyRunning, "Another broker request is waiting for its answer.",
                        correlationId: resume.correlationId))
                    return
                }
                // A cancellation that came before the request waited ends it now.
                if Task.isCancelled {
                    finish(nonce: nonce, with: .failure(canceled))
                    return
                }
                Task {
                    NotificationCenter.default.post(name: NSNotification.Name(MSALWebAuthWillSwitchToBrokerApp), object: nil)
                    if !(await open()) { self.finish(nonce: nonce, with: .failure(Self.notOpened(resume.correlationId))) }
                }
            }
        } onCancel: {
            finish(nonce: nonce, with: .failure(canceled))
        }
    }

    private func finish(nonce: String, with result: Result<[String: String], any Error>) {
        let waiting = pending.withLock { slot -> Pending? in
            guard let current = slot, current.resume.brokerNonce == nonce else { return nil }
            slot = nil
            return current
        }
        waiting?.continuation.resume(with: result)
    }

    /// Hands `url` to the waiting request when it is that request's answer; false when no request waits, the URL
    /// comes from another app than the broker, or it is not a broker answer (the app handles the URL itself). An
    /// answer that fails its checks ends the request with the error.
    func handle(_ url: URL, sourceApplication: String?) -> Bool {
        if let source = sourceApplication, !source.isEmpty, !AuthenticatorBrokerRequest.brokerBundleIds.contains(source) {
            return false
        }
        guard let current = pending.get(), AuthenticatorBrokerResponse.answers(url, current.resume) else {
            let handlers = orphanHandlers.withLock { handlers in
                handlers.removeAll { $0.owner.owner == nil }
                return handlers.map(\.take)
            }
            return handlers.contains { $0(url, sourceApplication) }
        }
        let result = Result { try AuthenticatorBrokerResponse.fields(url, key: current.key, resume: current.resume,
                                                                    sourceApplication: sourceApplication) }
        NotificationCenter.default.post(name: NSNotification.Name(MSALWebAuthDidReceiveResponseFromBroker), object: nil)
        finish(nonce: current.resume.brokerNonce, with: result)
        return true
    }
}
