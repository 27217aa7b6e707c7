import Foundation

/// Native sign-in as a value-type state machine (Microsoft Entra External ID), tested without I/O: each event
/// (the app's input, a server answer) gives the next state and what to do — send a request, ask the app for a code
/// or a password, finish, or fail with MSAL for iOS/macOS's error kind. Redeeming tokens is the acquisition driver's
/// business; this machine only says which grant to redeem.
package struct NativeSignInFlow: Sendable, Equatable {
    /// What the machine asks its driver to do next.
    package enum Step: Sendable, Equatable {
        /// `POST {authority}/oauth2/v2.0/initiate`.
        case initiate(username: String, challengeTypes: String)
        /// `POST {authority}/oauth2/v2.0/challenge`.
        case challenge(continuationToken: String, challengeTypes: String)
        /// Redeem the password grant.
        case redeemPassword(NativeAuthPasswordGrant)
        /// Redeem the one-time passcode grant.
        case redeemCode(NativeAuthCodeGrant)
        /// Redeem the last token of a sign-up or password reset (the sign-in after it).
        case redeemContinuation(NativeAuthContinuationGrant)
        /// The first factor passed; the tenant wants a second one or a strong method registered first
        /// (``NativeStrongAuthFlow``), going on with this token.
        case strongAuthRequired(NativeStrongAuthFlow.Kind, continuationToken: String)
        /// Ask the app for the code sent to `sentTo` (`SignInCodeRequiredState`).
        case codeRequired(sentTo: String, channel: String, codeLength: Int)
        /// Ask the app for the password (`SignInPasswordRequiredState`).
        case passwordRequired
        /// The sign-in failed; `canRetry`: the state before the failing step is kept (a wrong code or password).
        case failed(NativeSignInError, canRetry: Bool)
    }

    /// Where the flow is.
    package enum Stage: Sendable, Equatable {
        case start
        case initiated
        case challenged
        case awaitingCode(continuationToken: String)
        case awaitingPassword(continuationToken: String)
        /// A new code was asked for; the token before it stays usable if that fails.
        case resending(continuationToken: String)
        case redeeming(continuationToken: String, password: Bool)
        case finished
    }

    package var clientId: String
    package var username: String
    package var password: String?
    package var scopes: [String]
    package var challengeTypes: NativeAuthChallengeTypes
    package var claims: String?
    package private(set) var stage: Stage = .start
    /// Whether the password being redeemed came with the start of the sign-in (a wrong one then ends the sign-in
    /// with `invalidCredentials`, as MSAL for iOS/macOS reports it) rather than from the password state.
    private var passwordFromStart = false

    package init(clientId: String, username: String, password: String?, scopes: [String],
                 challengeTypes: NativeAuthChallengeTypes, claims: String? = nil) {
        self.clientId = clientId
        self.username = username
        self.password = password
        self.scopes = scopes
        self.challengeTypes = challengeTypes
        self.claims = claims
    }

    /// The first step: checks the input before any request (an empty username or password fails locally).
    package mutating func start() -> Step {
        guard case .start = stage else { return .failed(.general("The sign-in already started."), canRetry: false) }
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            stage = .finished
            return .failed(.invalidUsername, canRetry: false)
        }
        if let password, password.isEmpty {
            stage = .finished
            return .failed(.invalidCredentials, canRetry: false)
        }
        stage = .initiated
        return .initiate(username: username, challengeTypes: challengeTypes.parameter)
    }

    /// The sign-in that ends a sign-up or a password reset: the flow's last token redeemed once.
    package mutating func startAfterFlow(continuationToken: String) -> Step {
        guard case .start = stage else { return .failed(.general("The sign-in already started."), canRetry: false) }
        stage = .redeeming(continuationToken: continuationToken, password: false)
        return .redeemContinuation(NativeAuthContinuationGrant(clientId: clientId, continuationToken: continuationToken,
                                                               username: username, scopes: scopes, challengeTypes: challengeTypes,
                                                               claims: claims))
    }

    /// The answer of `initiate` or `challenge`.
    package mutating func received(_ answer: NativeAuthAnswer) -> Step {
        switch (stage, answer) {
        case (.initiated, .continuation(let token)):
            stage = .challenged
            return .challenge(continuationToken: token, challengeTypes: challengeTypes.parameter)
        case (.challenged, .codeSent(let token, let sentTo, let channel, let codeLength)):
            stage = .awaitingCode(continuationToken: token)
            return .codeRequired(sentTo: sentTo, channel: channel, codeLength: codeLength)
        case (.challenged, .passwordRequired(let token)):
            guard let password else {
                stage = .awaitingPassword(continuationToken: token)
                return .passwordRequired
            }
            passwordFromStart = true
            return submitPassword(password, token: token)
        case (.resending, .codeSent(let token, let sentTo, let channel, let codeLength)):
            stage = .awaitingCode(continuationToken: token)
            return .codeRequired(sentTo: sentTo, channel: channel, codeLength: codeLength)
        case (.resending(let previous), .error(let error)):
            stage = .awaitingCode(continuationToken: previous)
            return .failed(.general(error.description ?? error.error), canRetry: true)
        case (.resending(let previous), .malformed(let why)):
            stage = .awaitingCode(continuationToken: previous)
            return .failed(.general(why), canRetry: true)
        case (_, .browserRequired(let reason)):
            stage = .finished
            return .failed(.browserRequired(reason), canRetry: false)
        case (.initiated, .error(let error)), (.challenged, .error(let error)):
            stage = .finished
            return .failed(NativeSignInError.startError(error), canRetry: false)
        case (_, .malformed(let why)):
            stage = .finished
            return .failed(.general(why), canRetry: false)
        default:
            stage = .finished
            return .failed(.general("An answer that does not fit the sign-in's step."), canRetry: false)
        }
    }

    /// The code the user typed (`SignInCodeRequiredState.submitCode`).
    package mutating func submitCode(_ code: String) -> Step {
        guard case .awaitingCode(let token) = stage else {
            return .failed(.general("No code is awaited."), canRetry: false)
        }
        guard !code.isEmpty else { return .failed(.invalidCode, canRetry: true) }
        stage = .redeeming(continuationToken: token, password: false)
        return .redeemCode(NativeAuthCodeGrant(clientId: clientId, continuationToken: token, code: code,
                                               scopes: scopes, claims: claims))
    }

    /// Another code (`SignInCodeRequiredState.resendCode`): `challenge` again with the current token.
    package mutating func resendCode() -> Step {
        guard case .awaitingCode(let token) = stage else {
            return .failed(.general("No code is awaited."), canRetry: false)
        }
        stage = .resending(continuationToken: token)
        return .challenge(continuationToken: token, challengeTypes: challengeTypes.parameter)
    }

    /// The password the user typed (`SignInPasswordRequiredState.submitPassword`).
    package mutating func submitPassword(_ password: String) -> Step {
        guard case .awaitingPassword(let token) = stage else {
            return .failed(.general("No password is awaited."), canRetry: false)
        }
        guard !password.isEmpty else { return .failed(.invalidPassword, canRetry: true) }
        passwordFromStart = false
        return submitPassword(password, token: token)
    }

    private mutating func submitPassword(_ password: String, token: String) -> Step {
        stage = .redeeming(continuationToken: token, password: true)
        return .redeemPassword(NativeAuthPasswordGrant(clientId: clientId, continuationToken: token, username: username,
                                                       password: password, scopes: scopes,
                                                       challengeTypes: challengeTypes, claims: claims))
    }

    /// The token endpoint's error for the redeemed grant: a wrong code or password keeps the state (the same
    /// continuation token may be used again); anything else ends the flow.
    package mutating func redeemFailed(_ error: NativeAuthServerError) -> Step {
        guard case .redeeming(let token, let password) = stage else {
            return .failed(.general("No grant is being redeemed."), canRetry: false)
        }
        if error.error == "invalid_grant", let next = error.continuationToken,
           let strong: NativeStrongAuthFlow.Kind = error.suberror == "mfa_required" ? .multiFactor
               : error.suberror == "registration_required" ? .registration : nil {
            stage = .finished
            return .strongAuthRequired(strong, continuationToken: next)
        }
        let kind = NativeSignInError.tokenError(error, password: password)
        switch kind {
        case .invalidCode:
            stage = .awaitingCode(continuationToken: token)
            return .failed(kind, canRetry: true)
        case .invalidPassword where passwordFromStart:
            stage = .finished
            return .failed(.invalidCredentials, canRetry: false)
        case .invalidPassword:
            stage = .awaitingPassword(continuationToken: token)
            return .failed(kind, canRetry: true)
        default:
            stage = .finished
            return .failed(kind, canRetry: false)
        }
    }

    /// No answer came for the redeemed grant (transport, a malformed answer): the state before it is kept, so the
    /// same code or password may be submitted again.
    package mutating func redeemInterrupted(_ why: String) -> Step {
        guard case .redeeming(let token, let password) = stage else {
            return .failed(.general(why), canRetry: false)
        }
        stage = password ? .awaitingPassword(continuationToken: token) : .awaitingCode(continuationToken: token)
        return .failed(.general(why), canRetry: true)
    }

    /// The grant was redeemed: the sign-in is complete.
    package mutating func redeemed() { stage = .finished }
}

/// MSAL for iOS/macOS's error kinds of native sign-in (the `is…` predicates of its error classes).
package enum NativeSignInError: Error, Sendable, Equatable {
    case browserRequired(String?)
    case userNotFound
    case invalidCredentials
    case invalidUsername
    case invalidCode
    case invalidPassword
    case general(String)

    /// An error of `initiate` or `challenge`.
    static func startError(_ error: NativeAuthServerError) -> NativeSignInError {
        switch error.error {
        case "user_not_found": .userNotFound
        default: .general(error.description ?? error.error)
        }
    }

    /// An error of the token endpoint, for the password step (`password`) or the code step.
    static func tokenError(_ error: NativeAuthServerError, password: Bool) -> NativeSignInError {
        if error.error == "user_not_found" { return .userNotFound }
        if error.error == "invalid_request", error.errorCodes.contains(50142) {
            return .general(NativeAuthMessages.passwordChangeRequired + (error.description ?? error.error))
        }
        guard error.error == "invalid_grant" else { return .general(error.description ?? error.error) }
        if !password, error.suberror == "invalid_oob_value" { return .invalidCode }
        switch error.errorCodes.first {
        case 50034?: return .userNotFound
        case 50126?: return password ? .invalidPassword : .invalidCredentials
        default: return .general(error.description ?? error.error)
        }
    }
}

/// The explanations MSAL for iOS/macOS puts before some of the service's messages.
enum NativeAuthMessages {
    /// AADSTS50142: the user must change their password (in the browser) before signing in.
    static let passwordChangeRequired = "A password change is required before signing in. "
    /// AADSTS50076: the tenant requires multi-factor authentication, which this app does not handle.
    static let multiFactorRequired = "Multi-factor authentication is required: sign in in the browser. "
    /// `provider_blocked_by_rep` on a strong method or a contact.
    static let methodBlocked = "The service blocked this authentication method: choose another. "
    static let contactBlocked = "The service blocked this verification contact: give another. "

    /// `message`, explained when `kind` is a blocked method or contact.
    static func blocked(_ kind: NativeAuthErrorKind, _ message: String) -> String {
        switch kind {
        case .authMethodBlocked: methodBlocked + message
        case .verificationContactBlocked: contactBlocked + message
        default: message
        }
    }

    /// `message` with the explanation its error codes call for, if any.
    static func explained(_ message: String, codes: [Int]) -> String {
        if codes.contains(50076) { return multiFactorRequired + message }
        if codes.contains(50142) { return passwordChangeRequired + message }
        return message
    }
}
