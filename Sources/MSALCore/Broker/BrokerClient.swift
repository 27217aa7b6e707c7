import Foundation

/// An application's way to the identity broker: builds each request (``BrokerRequest``), reads each answer
/// (``BrokerAnswer``), and remembers when no broker answers, so that the application's own flows run without waiting
/// on it again for a minute.
final class BrokerClient: Sendable {
    let transport: any MSALBrokerTransport
    let clock: any MSALClock
    let log: MSALLog
    /// When the broker was last found missing, and why; nil while it answers (or before the first call).
    private let missing = LockedBox<(since: Date, reason: String)?>(nil)
    /// Whether the broker answered its ping (checked before the first call).
    private let pinged = LockedBox(false)
    /// How long a broker found missing is not asked again.
    static let retryAfter: TimeInterval = 60

    init(transport: any MSALBrokerTransport, clock: any MSALClock, log: MSALLog) {
        self.transport = transport
        self.clock = clock
        self.log = log
    }

    /// Whether the broker is worth asking now (not found missing within the last minute).
    var mayBeAvailable: Bool {
        guard let missing = missing.get() else { return true }
        return clock.now().timeIntervalSince(missing.since) >= Self.retryAfter
    }

    /// Why the broker was last found missing, if it was.
    var missingReason: String? { missing.get()?.reason }

    /// Sends `request` and returns the answer. A broker that is not there is remembered and logged, and the error
    /// (``MSALInternalError/internalBrokerNotAvailable``) is thrown for the caller to run its own flow.
    func send(_ request: BrokerRequest, correlationId: UUID, interactive: Bool = false) async throws -> Data {
        do {
            if !pinged.get() {
                try await transport.ping()
                pinged.set(true)
            }
            let answer = try await transport.call(request.method, correlationId: correlationId, request: request.body,
                                                  interactive: interactive)
            missing.set(nil)
            return answer
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            pinged.set(false)
            missing.set((clock.now(), error.errorDescription))
            log.with(correlationId: correlationId).info(
                "The identity broker is not available (\(error.errorDescription)); using the library's own flows.")
            throw error
        }
    }

    func accounts(clientId: String, redirectUri: String, correlationId: UUID) async throws -> [BrokerAccount] {
        let data = try await send(.accounts(clientId: clientId, redirectUri: redirectUri), correlationId: correlationId)
        return try BrokerAnswer.accounts(data, correlationId: correlationId)
    }

    func silentToken(_ parameters: BrokerRequest.AuthParameters, correlationId: UUID) async throws -> BrokerTokenResponse {
        let data = try await send(.silentToken(parameters), correlationId: correlationId)
        return try BrokerAnswer.token(data, expected: parameters.account, correlationId: correlationId)
    }

    /// An interactive sign-in in the broker's window. When the task is cancelled (the application's
    /// ``MSALPublicClientApplication/cancelCurrentWebAuthSession()``, or the caller's task), the broker is told with
    /// `cancelInteractiveFlow`, so that its window closes, as msalruntime does; the call ends with
    /// ``MSALError/userCanceled``. The accept step binds the answer to the request's account.
    func interactiveToken(_ parameters: BrokerRequest.AuthParameters, correlationId: UUID) async throws -> BrokerTokenResponse {
        let data: Data
        do {
            data = try await send(.interactiveToken(parameters), correlationId: correlationId, interactive: true)
        } catch let error as MSALErrorInfo where error.code == .userCanceled && Task.isCancelled {
            cancelInteractive(correlationId: correlationId)
            throw error
        }
        return try BrokerAnswer.token(data, expected: nil, correlationId: correlationId)
    }

    /// Tells the broker to end the interactive flow of `correlationId`, from a task of its own (the caller's task is
    /// cancelled, and the cancellation does not wait for the broker); its answer is only logged.
    func cancelInteractive(correlationId: UUID) {
        let (transport, log) = (transport, log)
        Task.detached {
            let sent = try? await transport.call(.cancelInteractiveFlow, correlationId: correlationId,
                                                 request: BrokerRequest.cancelInteractive(reason: "The application cancelled the sign-in.").body,
                                                 interactive: false)
            if sent == nil { log.with(correlationId: correlationId).info("The broker did not take cancelInteractiveFlow.") }
        }
    }

    func signOut(_ parameters: BrokerRequest.AuthParameters, correlationId: UUID) async throws -> Bool {
        let data = try await send(.signOut(parameters), correlationId: correlationId)
        return try BrokerAnswer.signedOut(data, correlationId: correlationId)
    }

    /// `generateSignedHttpRequest`: the broker's signed request for `popParams`.
    func signedHTTPRequest(clientId: String, popParams: BrokerRequest.PoPParameters, correlationId: UUID) async throws -> String {
        let data = try await send(.signedHTTPRequest(clientId: clientId, popParams: popParams), correlationId: correlationId)
        return try BrokerAnswer.signedHTTPRequest(data, correlationId: correlationId)
    }

    func version(correlationId: UUID) async throws -> String {
        let data = try await send(.version(clientVersion: ClientHeaders.version), correlationId: correlationId)
        return try BrokerAnswer.version(data, correlationId: correlationId)
    }
}
