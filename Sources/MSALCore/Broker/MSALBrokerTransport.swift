public import Foundation

/// The way to an identity broker: the Microsoft identity broker over D-Bus on Linux
/// (`com.microsoft.identity.broker1`), the emulator's broker in tests; later the Apple brokers. MSAL builds each
/// request and reads each answer itself; a transport only carries the JSON text of one call and its answer.
///
/// Every method of the Linux broker takes the same three strings — the protocol version (`"0.0"`), the call's
/// correlation id and the request JSON — and answers one string of JSON.
public protocol MSALBrokerTransport: Sendable {
    /// Sends `request` (JSON) to the broker's `method` and returns its answer (JSON).
    ///
    /// - Parameters:
    ///   - method: the broker method to call.
    ///   - correlationId: the call's correlation id, which the broker logs with the request.
    ///   - request: the request's JSON text.
    ///   - interactive: the call waits for the user (a sign-in in the broker's own window): the transport gives it
    ///     the user's time, not the short bound of a silent call. Cancelling the task ends the wait.
    /// - Returns: the broker's answer, JSON text.
    /// - Throws: ``MSALInternalError/internalBrokerNotAvailable`` when no broker answers (none installed, not on the
    ///   bus, no answer in time, died mid-call), ``MSALError/userCanceled`` when the task was cancelled. Never an error
    ///   that carries the request.
    func call(_ method: MSALBrokerMethod, correlationId: UUID, request: Data, interactive: Bool) async throws -> Data

    /// Checks, within a short bound, that a broker is there to answer (before the first call of an application).
    ///
    /// - Throws: ``MSALInternalError/internalBrokerNotAvailable`` when none answers.
    func ping() async throws
}

extension MSALBrokerTransport {
    /// No check: the first call tells.
    public func ping() async throws {}
}

/// The methods of the Linux broker's D-Bus interface `com.microsoft.identity.Broker1`, by their D-Bus names.
public enum MSALBrokerMethod: String, Sendable, CaseIterable {
    case getAccounts
    case acquireTokenSilently
    case acquireTokenInteractively
    /// Sign-out, as Microsoft's own client (msalruntime) asks for it.
    case signOutSilently
    /// Sign-out, as the broker's earlier interface named it.
    case removeAccount
    case acquirePrtSsoCookie
    case generateSignedHttpRequest
    case cancelInteractiveFlow
    case getLinuxBrokerVersion
}
