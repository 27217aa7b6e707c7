import Foundation

/// What one poll of the token endpoint told the device code flow (RFC 8628 §3.5, with Entra's extensions).
enum DeviceCodePollOutcome: Equatable, Sendable {
    /// The user signed in: the response holds tokens.
    case tokens
    /// `authorization_pending`: the user has not finished yet.
    case authorizationPending
    /// `slow_down`: poll less often.
    case slowDown
    /// `authorization_declined` (Entra) or `access_denied` (RFC 8628): the user said no.
    case declined
    /// `expired_token`: the device code expired.
    case expired
    /// `bad_verification_code`: the server does not know the device code.
    case badVerificationCode
    /// Any other OAuth error: ends the flow with the server's error.
    case otherError
    /// The server could not be reached, or answered 5xx or 429: back off and try again.
    case transportFailure

    /// Classifies a token endpoint answer from its status and OAuth `error` value.
    static func classify(statusCode: Int, oauthError: String?) -> DeviceCodePollOutcome {
        if (200..<300).contains(statusCode) { return .tokens }
        if statusCode >= 500 || statusCode == 429 { return .transportFailure }
        switch oauthError {
        case "authorization_pending": return .authorizationPending
        case "slow_down": return .slowDown
        case "authorization_declined", "access_denied": return .declined
        case "expired_token", "code_expired": return .expired
        case "bad_verification_code": return .badVerificationCode
        default: return .otherError
        }
    }
}

/// Why the device code flow stopped without tokens.
enum DeviceCodeStopReason: Equatable, Sendable {
    /// The device code expired (by the server's answer or the client's clock).
    case expired
    /// The user declined the sign-in.
    case declined
    /// The server rejected the device code.
    case badVerificationCode
    /// The server answered with another error; report it as is.
    case serverError
    /// The server could not be reached after several attempts; report the last failure.
    case transportFailed
}

/// What the device code flow does next.
enum DeviceCodePollAction: Equatable, Sendable {
    /// Sleep this many seconds, then ask ``DeviceCodePolling/waited(now:)``.
    case wait(TimeInterval)
    /// Send one token request now, then report its outcome to ``DeviceCodePolling/received(_:now:)``.
    case poll
    /// The response holds tokens: redeem it.
    case succeed
    /// Stop with an error.
    case stop(DeviceCodeStopReason)
}

/// The polling rules of the device code flow as a pure state machine: no I/O, no clock of its own.
///
/// - The first poll goes out at once: a user who signed in before polling started (or an identity provider that
///   approves at once) gets the tokens without waiting. Later polls wait one interval (the server's `interval`,
///   5 s when absent, at least 1 s).
/// - `authorization_pending` keeps the interval; `slow_down` adds 5 s to it for this and every later poll
///   (RFC 8628 §3.5).
/// - Transport failures, 5xx and 429 back off exponentially (interval × 2ⁿ, at most 60 s); after
///   ``maximumConsecutiveFailures`` in a row the flow stops.
/// - No wait reaches past the device code's expiry; once it has passed, the flow stops as expired.
struct DeviceCodePolling: Equatable, Sendable {
    /// RFC 8628 §3.5: the increase for `slow_down`.
    static let slowDownIncrement: TimeInterval = 5
    /// RFC 8628 §3.2: the interval when the server gives none.
    static let defaultInterval: TimeInterval = 5
    /// The longest back-off after transport failures.
    static let maximumBackoff: TimeInterval = 60
    /// Transport failures in a row after which the flow gives up.
    static let maximumConsecutiveFailures = 5

    /// The current polling interval in seconds.
    private(set) var interval: TimeInterval
    /// When the device code expires.
    let expiresOn: Date
    /// Transport failures since the last answer from the server.
    private(set) var consecutiveFailures = 0

    init(interval: TimeInterval?, expiresOn: Date) {
        let given = interval ?? Self.defaultInterval
        self.interval = given.isFinite ? max(1, given) : Self.defaultInterval
        self.expiresOn = expiresOn
    }

    /// The first action: poll at once, unless the code has already expired.
    func start(now: Date) -> DeviceCodePollAction {
        waited(now: now)
    }

    /// After a wait: poll, unless the code has expired meanwhile.
    func waited(now: Date) -> DeviceCodePollAction {
        now >= expiresOn ? .stop(.expired) : .poll
    }

    /// After a poll: what its outcome means for the flow.
    mutating func received(_ outcome: DeviceCodePollOutcome, now: Date) -> DeviceCodePollAction {
        if outcome != .transportFailure { consecutiveFailures = 0 }
        switch outcome {
        case .tokens:
            return .succeed
        case .authorizationPending:
            return schedule(interval, now: now)
        case .slowDown:
            interval += Self.slowDownIncrement
            return schedule(interval, now: now)
        case .declined:
            return .stop(.declined)
        case .expired:
            return .stop(.expired)
        case .badVerificationCode:
            return .stop(.badVerificationCode)
        case .otherError:
            return .stop(.serverError)
        case .transportFailure:
            consecutiveFailures += 1
            if consecutiveFailures >= Self.maximumConsecutiveFailures { return .stop(.transportFailed) }
            let backoff = min(interval * pow(2, Double(consecutiveFailures)), Self.maximumBackoff)
            return schedule(max(interval, backoff), now: now)
        }
    }

    /// Waits `delay`, but never past the expiry; stops when the code has already expired.
    private func schedule(_ delay: TimeInterval, now: Date) -> DeviceCodePollAction {
        let remaining = expiresOn.timeIntervalSince(now)
        guard remaining > 0 else { return .stop(.expired) }
        return .wait(min(delay, remaining))
    }
}
