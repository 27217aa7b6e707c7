import Foundation

/// Self-service password reset as a value-type state machine: start, the emailed code, the new password, then
/// polling until the service applied it (at most six polls, `poll_interval` apart on the app's clock), ending with
/// the token that signs the user in. MSAL for iOS/macOS's error kinds; tested without I/O.
package struct NativeResetPasswordFlow: NativeFlowMachine, Equatable {
    package static let startEndpoint = "resetpassword/v1.0/start"
    package static let challengeEndpoint = "resetpassword/v1.0/challenge"
    package static let continueEndpoint = "resetpassword/v1.0/continue"
    package static let submitEndpoint = "resetpassword/v1.0/submit"
    package static let pollEndpoint = "resetpassword/v1.0/poll_completion"
    /// MSAL for iOS/macOS polls at most this many times.
    package static let maximumPolls = 6

    package enum Stage: Sendable, Equatable {
        case start
        case started
        case challenging(previous: String?)
        case awaitingCode(String)
        case verifying(String)
        case awaitingPassword(String)
        case submitting(String)
        /// Polling with `token`; `passwordToken`: the state to return to when the password is rejected.
        case polling(token: String, passwordToken: String, polls: Int, interval: Int)
        case finished
    }

    package var username: String
    package var challengeTypes: NativeAuthChallengeTypes
    package var capabilities: String?
    package private(set) var stage: Stage = .start

    package init(username: String, challengeTypes: NativeAuthChallengeTypes, capabilities: String? = nil) {
        self.username = username
        self.challengeTypes = challengeTypes
        self.capabilities = capabilities
    }

    package mutating func start() -> NativeFlowStep {
        guard stage == .start else { return .unexpected }
        stage = .finished
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else { return .failed(.invalidUsername, nil, canRetry: false) }
        var fields = [NativeAuthField("username", username), NativeAuthField("challenge_type", challengeTypes.parameter)]
        if let capabilities { fields.append(NativeAuthField("capabilities", capabilities)) }
        stage = .started
        return .post(Self.startEndpoint, fields)
    }

    package mutating func submitCode(_ code: String) -> NativeFlowStep {
        guard case .awaitingCode(let token) = stage else { return .failed(.general, "No code is awaited.", canRetry: false) }
        guard !code.isEmpty else { return .failed(.invalidCode, nil, canRetry: true) }
        stage = .verifying(token)
        return .post(Self.continueEndpoint, [NativeAuthField("continuation_token", token), NativeAuthField("grant_type", "oob"),
                                             NativeAuthField("oob", code)])
    }

    package mutating func resendCode() -> NativeFlowStep {
        guard case .awaitingCode(let token) = stage else { return .failed(.general, "No code is awaited.", canRetry: false) }
        stage = .challenging(previous: token)
        return .challenge(Self.challengeEndpoint, token: token, types: challengeTypes)
    }

    package mutating func submitPassword(_ password: String) -> NativeFlowStep {
        guard case .awaitingPassword(let token) = stage else { return .failed(.general, "No password is awaited.", canRetry: false) }
        guard !password.isEmpty else { return .failed(.invalidPassword, nil, canRetry: true) }
        stage = .submitting(token)
        return .post(Self.submitEndpoint, [NativeAuthField("continuation_token", token), NativeAuthField("new_password", password)])
    }

    package mutating func received(_ answer: NativeAuthAnswer) -> NativeFlowStep {
        if case .browserRequired(let reason) = answer {
            stage = .finished
            return .failed(.browserRequired, reason, canRetry: false)
        }
        switch (stage, answer) {
        case (.started, .continuation(let token)):
            stage = .challenging(previous: nil)
            return .challenge(Self.challengeEndpoint, token: token, types: challengeTypes)
        case (.started, .error(let error)):
            stage = .finished
            switch error.error {
            case "user_not_found": return .failed(.userNotFound, error.description, canRetry: false)
            case "invalid_request" where error.errorCodes.first == 500222:
                return .failed(.userDoesNotHavePassword, error.description, canRetry: false)
            default: return .failed(.general, error.description ?? error.error, canRetry: false)
            }
        case (.challenging, .codeSent(let token, let sentTo, let channel, let length)):
            stage = .awaitingCode(token)
            return .codeRequired(sentTo: sentTo, channel: channel, codeLength: length)
        case (.challenging(let previous?), .error(let error)):
            stage = .awaitingCode(previous)
            return .failed(.general, error.description ?? error.error, canRetry: true)
        case (.verifying, .continuation(let token)):
            stage = .awaitingPassword(token)
            return .passwordRequired
        case (.verifying(let token), .error(let error)) where error.suberror == "invalid_oob_value":
            stage = .awaitingCode(token)
            return .failed(.invalidCode, error.description, canRetry: true)
        case (.submitting(let token), .passwordSubmitted(let next, let interval)):
            stage = .polling(token: next, passwordToken: token, polls: 1, interval: interval)
            return .wait(seconds: interval, then: Self.pollEndpoint, [NativeAuthField("continuation_token", next)])
        case (.submitting(let token), .error(let error)) where error.isPasswordPolicy:
            stage = .awaitingPassword(token)
            return .failed(.invalidPassword, error.description, canRetry: true)
        case (.polling(_, _, _, _), .resetStatus("succeeded", let token?)):
            stage = .finished
            return .completed(continuationToken: token)
        case (.polling(let token, let passwordToken, let polls, let interval), .resetStatus(let status, _))
            where status == "in_progress" || status == "not_started":
            guard polls < Self.maximumPolls else {
                stage = .finished
                return .failed(.general, "The password reset did not complete after \(polls) polls.", canRetry: false)
            }
            stage = .polling(token: token, passwordToken: passwordToken, polls: polls + 1, interval: interval)
            return .wait(seconds: interval, then: Self.pollEndpoint, [NativeAuthField("continuation_token", token)])
        case (.polling(_, let passwordToken, _, _), .error(let error)) where error.isPasswordPolicy:
            stage = .awaitingPassword(passwordToken)
            return .failed(.invalidPassword, error.description, canRetry: true)
        case (.polling, .resetStatus(let status, _)):
            stage = .finished
            return .failed(.general, "The password reset ended with the status '\(status)'.", canRetry: false)
        case (_, .malformed(let why)):
            stage = .finished
            return .failed(.general, why, canRetry: false)
        case (_, .error(let error)):
            stage = .finished
            return .failed(.general, error.description ?? error.error, canRetry: false)
        default:
            stage = .finished
            return .unexpected
        }
    }
}
