import Foundation

/// The second part of a native sign-in whose first factor passed but the tenant wants more: a second factor
/// (`mfa_required`) or registering a strong method first (`registration_required`). A value-type state machine,
/// tested without I/O, driven by the sign-in's session.
///
/// MFA: `introspect` lists the user's methods → the app picks one → `challenge` with its `id` sends a code → the code
/// is redeemed (`grant_type=mfa_oob`). Registration: `register/v1.0/introspect` → the app gives a method and a contact
/// → `register/v1.0/challenge` sends a code (or answers `preverified` for a contact already verified) →
/// `register/v1.0/continue` → the last token is redeemed (`grant_type=continuation_token`).
package struct NativeStrongAuthFlow: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case multiFactor
        case registration

        var introspectPath: String { self == .multiFactor ? "oauth2/v2.0/introspect" : "register/v1.0/introspect" }
    }

    package enum Step: Sendable, Equatable {
        /// `POST {authority}/{path}` with the continuation token.
        case introspect(path: String, continuationToken: String)
        /// `POST {authority}/oauth2/v2.0/challenge` with the token, the challenge types and the method's `id`.
        case challengeMethod(continuationToken: String, methodId: String, challengeTypes: String)
        /// `POST {authority}/register/v1.0/challenge`.
        case challengeContact(continuationToken: String, method: NativeAuthMethod, contact: String, challengeTypes: String)
        /// `POST {authority}/register/v1.0/continue`: with the code (`grant_type=oob`), or without one after
        /// `preverified` (`grant_type=continuation_token`).
        case registerContinue(continuationToken: String, code: String?)
        /// Redeem the second factor's code.
        case redeemCode(NativeAuthCodeGrant)
        /// Redeem the registration's last token.
        case redeemContinuation(NativeAuthContinuationGrant)
        /// Ask the app to pick a method (`AwaitingMFAState`, `RegisterStrongAuthState`).
        case methodsListed([NativeAuthMethod])
        /// Ask the app for the code sent (`MFARequiredState`, `RegisterStrongAuthVerificationRequiredState`).
        case codeRequired(sentTo: String, channel: String, codeLength: Int)
        /// `canRetry`: the state the failing call was made on is still usable.
        case failed(NativeAuthErrorKind, message: String?, canRetry: Bool)
    }

    package enum Stage: Sendable, Equatable {
        case introspecting(continuationToken: String)
        case awaitingMethod(continuationToken: String)
        /// A code was asked for; `previous` is where the flow goes back to if that fails.
        case challenging(previous: Resting)
        case awaitingCode(continuationToken: String)
        case continuing(previous: Resting)
        case redeeming(continuationToken: String)
        case finished
    }

    /// A stage where the flow waits for the app.
    package enum Resting: Sendable, Equatable {
        case awaitingMethod(continuationToken: String)
        case awaitingCode(continuationToken: String)

        var stage: Stage {
            switch self {
            case .awaitingMethod(let token): .awaitingMethod(continuationToken: token)
            case .awaitingCode(let token): .awaitingCode(continuationToken: token)
            }
        }
    }

    package let kind: Kind
    package var clientId: String
    package var username: String
    package var scopes: [String]
    package var challengeTypes: NativeAuthChallengeTypes
    package var claims: String?
    package private(set) var stage: Stage

    package init(kind: Kind, continuationToken: String, clientId: String, username: String, scopes: [String],
                 challengeTypes: NativeAuthChallengeTypes, claims: String?) {
        self.kind = kind
        self.clientId = clientId
        self.username = username
        self.scopes = scopes
        self.challengeTypes = challengeTypes
        self.claims = claims
        stage = .introspecting(continuationToken: continuationToken)
    }

    /// The first step: list the user's methods.
    package func start() -> Step {
        guard case .introspecting(let token) = stage else { return .failed(.general, message: "The step already started.", canRetry: false) }
        return .introspect(path: kind.introspectPath, continuationToken: token)
    }

    /// Asks for a code to `method` (MFA; from the method list, or for another code while one is awaited).
    package mutating func requestChallenge(_ method: NativeAuthMethod) -> Step {
        guard kind == .multiFactor, let resting = resting else { return notNow("No method is awaited.") }
        stage = .challenging(previous: resting)
        return .challengeMethod(continuationToken: resting.token, methodId: method.id, challengeTypes: challengeTypes.parameter)
    }

    /// Registers `contact` for `method` (registration; from the method list, or again while a code is awaited).
    package mutating func challengeContact(_ method: NativeAuthMethod, contact: String) -> Step {
        guard kind == .registration, let resting = resting else { return notNow("No method is awaited.") }
        guard !contact.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .failed(.invalidInput, message: "The verification contact is empty.", canRetry: true)
        }
        stage = .challenging(previous: resting)
        return .challengeContact(continuationToken: resting.token, method: method, contact: contact,
                                 challengeTypes: challengeTypes.parameter)
    }

    /// The code the user typed.
    package mutating func submitCode(_ code: String) -> Step {
        guard case .awaitingCode(let token) = stage else { return notNow("No code is awaited.") }
        guard !code.isEmpty else { return .failed(.invalidChallenge, message: "The code is empty.", canRetry: true) }
        switch kind {
        case .multiFactor:
            stage = .redeeming(continuationToken: token)
            return .redeemCode(NativeAuthCodeGrant(clientId: clientId, continuationToken: token, code: code, scopes: scopes,
                                                   claims: claims, secondFactor: true))
        case .registration:
            stage = .continuing(previous: .awaitingCode(continuationToken: token))
            return .registerContinue(continuationToken: token, code: code)
        }
    }

    /// An answer of `introspect`, `challenge` or `register/v1.0/continue`.
    package mutating func received(_ answer: NativeAuthAnswer) -> Step {
        switch (stage, answer) {
        case (.introspecting, .methods(let token, let methods)):
            stage = .awaitingMethod(continuationToken: token)
            return .methodsListed(methods)
        case (.challenging, .codeSent(let token, let sentTo, let channel, let length)):
            stage = .awaitingCode(continuationToken: token)
            return .codeRequired(sentTo: sentTo, channel: channel, codeLength: length)
        case (.challenging, .preverified(let token)) where kind == .registration:
            stage = .continuing(previous: .awaitingMethod(continuationToken: token))
            return .registerContinue(continuationToken: token, code: nil)
        case (.continuing, .continuation(let token)):
            stage = .redeeming(continuationToken: token)
            return .redeemContinuation(NativeAuthContinuationGrant(clientId: clientId, continuationToken: token, username: username,
                                                                   scopes: scopes, challengeTypes: challengeTypes, claims: claims))
        case (_, .browserRequired(let reason)):
            stage = .finished
            return .failed(.browserRequired, message: reason, canRetry: false)
        case (.challenging(let previous), .error(let error)):
            let kind = challengeErrorKind(error)
            guard kind != .general else { return finish(error.description ?? error.error) }
            stage = previous.stage
            return .failed(kind, message: NativeAuthMessages.blocked(kind, error.description ?? error.error), canRetry: true)
        case (.continuing(let previous), .error(let error))
            where error.error == "invalid_grant" && error.suberror == "invalid_oob_value":
            stage = previous.stage
            return .failed(.invalidChallenge, message: error.description, canRetry: true)
        case (_, .error(let error)):
            return finish(error.description ?? error.error)
        case (_, .malformed(let why)):
            return finish(why)
        default:
            return finish("An answer that does not fit the step.")
        }
    }

    /// The token endpoint's error for the redeemed code: a wrong code keeps the state.
    package mutating func redeemFailed(_ error: NativeAuthServerError) -> Step {
        guard case .redeeming(let token) = stage else { return notNow("No grant is being redeemed.") }
        if kind == .multiFactor, error.error == "invalid_grant", error.suberror == "invalid_oob_value" {
            stage = .awaitingCode(continuationToken: token)
            return .failed(.invalidChallenge, message: error.description, canRetry: true)
        }
        return finish(NativeAuthMessages.explained(error.description ?? error.error, codes: error.errorCodes))
    }

    /// No answer came for the redeemed grant: a code may be submitted again.
    package mutating func redeemInterrupted(_ why: String) -> Step {
        guard case .redeeming(let token) = stage, kind == .multiFactor else { return finish(why) }
        stage = .awaitingCode(continuationToken: token)
        return .failed(.general, message: why, canRetry: true)
    }

    /// The grant was redeemed: the sign-in is complete.
    package mutating func redeemed() { stage = .finished }

    private var resting: Resting? {
        switch stage {
        case .awaitingMethod(let token): .awaitingMethod(continuationToken: token)
        case .awaitingCode(let token): .awaitingCode(continuationToken: token)
        default: nil
        }
    }

    private func challengeErrorKind(_ error: NativeAuthServerError) -> NativeAuthErrorKind {
        if error.error == "access_denied", error.suberror == "provider_blocked_by_rep" {
            return kind == .multiFactor ? .authMethodBlocked : .verificationContactBlocked
        }
        if kind == .registration, error.error == "invalid_request", error.errorCodes.contains(901001) { return .invalidInput }
        return .general
    }

    private func notNow(_ why: String) -> Step { .failed(.general, message: why, canRetry: false) }

    private mutating func finish(_ message: String) -> Step {
        stage = .finished
        return .failed(.general, message: message, canRetry: false)
    }
}

extension NativeStrongAuthFlow.Resting {
    var token: String {
        switch self {
        case .awaitingMethod(let token), .awaitingCode(let token): token
        }
    }
}
