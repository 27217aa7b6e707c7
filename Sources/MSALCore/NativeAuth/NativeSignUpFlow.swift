import Foundation

/// Native sign-up as a value-type state machine: start (with the password and attributes the app collected up
/// front), the emailed code, then the password and the attributes the service still asks for, until the new
/// account's continuation token. MSAL for iOS/macOS's error kinds; tested without I/O.
package struct NativeSignUpFlow: NativeFlowMachine, Equatable {
    package static let startEndpoint = "signup/v1.0/start"
    package static let challengeEndpoint = "signup/v1.0/challenge"
    package static let continueEndpoint = "signup/v1.0/continue"

    package enum Stage: Sendable, Equatable {
        case start
        case started
        /// `challenge` was called; `previous`: the token a resend started from (kept if the resend fails).
        case challenging(previous: String?)
        case awaitingCode(String)
        case challengingPassword
        case awaitingPassword(String)
        case awaitingAttributes(String)
        /// `continue` was called with the code, the password or the attributes from the state holding `token`.
        case continuing(token: String, with: Input)
        case finished
    }

    /// What a `continue` call carried.
    package enum Input: Sendable, Equatable {
        case code, password, attributes
    }

    package var username: String
    package var password: String?
    /// The attributes as a JSON object text.
    package var attributes: String?
    package var challengeTypes: NativeAuthChallengeTypes
    package var capabilities: String?
    package private(set) var stage: Stage = .start
    /// The attribute names the service asked for last (`attributes_required`), to tell a service that makes no
    /// progress: asking again for exactly the attributes just submitted is an error, not another round.
    package private(set) var askedAttributes: [String]?
    /// The `continue` requests sent so far; at most ``continueLimit`` for one sign-up.
    package private(set) var continues = 0
    /// However the service answers, a sign-up ends after this many `continue` requests (a code, a password and
    /// attributes, with retries, take far fewer).
    package static let continueLimit = 32

    package init(username: String, password: String?, attributes: String?, challengeTypes: NativeAuthChallengeTypes,
                 capabilities: String? = nil) {
        self.username = username
        self.password = password
        self.attributes = attributes
        self.challengeTypes = challengeTypes
        self.capabilities = capabilities
    }

    /// `signup/v1.0/start`, after the local checks (an empty username or password fails before any request).
    package mutating func start() -> NativeFlowStep {
        guard stage == .start else { return .unexpected }
        stage = .finished
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else { return .failed(.invalidUsername, nil, canRetry: false) }
        if let password, password.isEmpty { return .failed(.invalidPassword, nil, canRetry: false) }
        var fields = [NativeAuthField("username", username), NativeAuthField("challenge_type", challengeTypes.parameter)]
        if let password { fields.append(NativeAuthField("password", password)) }
        if let attributes { fields.append(NativeAuthField("attributes", attributes)) }
        if let capabilities { fields.append(NativeAuthField("capabilities", capabilities)) }
        stage = .started
        return .post(Self.startEndpoint, fields)
    }

    package mutating func submitCode(_ code: String) -> NativeFlowStep {
        guard case .awaitingCode(let token) = stage else { return .failed(.general, "No code is awaited.", canRetry: false) }
        guard !code.isEmpty else { return .failed(.invalidCode, nil, canRetry: true) }
        return continueWith(token, .code, [NativeAuthField("grant_type", "oob"), NativeAuthField("oob", code)])
    }

    package mutating func resendCode() -> NativeFlowStep {
        guard case .awaitingCode(let token) = stage else { return .failed(.general, "No code is awaited.", canRetry: false) }
        stage = .challenging(previous: token)
        return .challenge(Self.challengeEndpoint, token: token, types: challengeTypes)
    }

    package mutating func submitPassword(_ password: String) -> NativeFlowStep {
        guard case .awaitingPassword(let token) = stage else { return .failed(.general, "No password is awaited.", canRetry: false) }
        guard !password.isEmpty else { return .failed(.invalidPassword, nil, canRetry: true) }
        return continueWith(token, .password, [NativeAuthField("grant_type", "password"), NativeAuthField("password", password)])
    }

    /// `attributes`: a JSON object text.
    package mutating func submitAttributes(_ attributes: String) -> NativeFlowStep {
        guard case .awaitingAttributes(let token) = stage else { return .failed(.general, "No attributes are awaited.", canRetry: false) }
        return continueWith(token, .attributes, [NativeAuthField("grant_type", "attributes"), NativeAuthField("attributes", attributes)])
    }

    private mutating func continueWith(_ token: String, _ input: Input, _ fields: [NativeAuthField]) -> NativeFlowStep {
        guard continues < Self.continueLimit else {
            stage = .finished
            return .failed(.general, "The sign-up did not finish within \(Self.continueLimit) steps; the service is not making progress.",
                           canRetry: false)
        }
        continues += 1
        stage = .continuing(token: token, with: input)
        return .post(Self.continueEndpoint, [NativeAuthField("continuation_token", token)] + fields)
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
            return Self.startError(error)
        case (.challenging, .codeSent(let token, let sentTo, let channel, let length)):
            stage = .awaitingCode(token)
            return .codeRequired(sentTo: sentTo, channel: channel, codeLength: length)
        case (.challenging(let previous?), .error(let error)):
            stage = .awaitingCode(previous)
            return .failed(.general, error.description ?? error.error, canRetry: true)
        case (.challenging(let previous?), .malformed(let why)):
            stage = .awaitingCode(previous)
            return .failed(.general, why, canRetry: true)
        case (.challengingPassword, .passwordRequired(let token)):
            stage = .awaitingPassword(token)
            return .passwordRequired
        case (.continuing, .continuation(let token)):
            stage = .finished
            return .completed(continuationToken: token)
        case (.continuing(let token, let input), .error(let error)):
            return continueError(error, token: token, input: input)
        case (.continuing(let token, let input), .malformed(let why)):
            restore(token, input)
            return .failed(.general, why, canRetry: true)
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

    private mutating func restore(_ token: String, _ input: Input) {
        switch input {
        case .code: stage = .awaitingCode(token)
        case .password: stage = .awaitingPassword(token)
        case .attributes: stage = .awaitingAttributes(token)
        }
    }

    private mutating func continueError(_ error: NativeAuthServerError, token: String, input: Input) -> NativeFlowStep {
        switch (error.error, input) {
        case ("credential_required", _) where error.continuationToken != nil:
            stage = .challengingPassword
            return .challenge(Self.challengeEndpoint, token: error.continuationToken ?? "", types: challengeTypes)
        case ("attributes_required", _) where error.continuationToken != nil:
            let names = error.requiredAttributes.map(\.name).sorted()
            guard !names.isEmpty else {
                stage = .finished
                return .failed(.general, "The service asked for attributes without naming any.", canRetry: false)
            }
            guard input != .attributes || names != askedAttributes else {
                stage = .finished
                return .failed(.general, "The service asked again for the attributes just submitted (\(names.joined(separator: ", "))).",
                               canRetry: false)
            }
            askedAttributes = names
            stage = .awaitingAttributes(error.continuationToken ?? "")
            return .attributesRequired(error.requiredAttributes)
        case ("invalid_grant", .code) where error.suberror == "invalid_oob_value":
            stage = .awaitingCode(token)
            return .failed(.invalidCode, error.description, canRetry: true)
        case ("invalid_grant", .password) where error.isPasswordPolicy:
            stage = .awaitingPassword(token)
            return .failed(.invalidPassword, error.description, canRetry: true)
        case ("invalid_grant", .attributes) where error.suberror == "attribute_validation_failed":
            stage = .awaitingAttributes(error.continuationToken ?? token)
            return .attributesInvalid(error.invalidAttributes, canRetry: true)
        default:
            stage = .finished
            return .failed(.general, error.description ?? error.error, canRetry: false)
        }
    }

    /// The error kinds of `signup/v1.0/start`.
    static func startError(_ error: NativeAuthServerError) -> NativeFlowStep {
        switch error.error {
        case "user_already_exists": return .failed(.userAlreadyExists, error.description, canRetry: false)
        case "invalid_grant" where error.isPasswordPolicy: return .failed(.invalidPassword, error.description, canRetry: false)
        case "invalid_grant" where error.suberror == "attribute_validation_failed":
            return .attributesInvalid(error.invalidAttributes, canRetry: false)
        case "invalid_request" where error.errorCodes.first == 90100 && (error.description ?? "").lowercased().contains("username"):
            return .failed(.invalidUsername, error.description, canRetry: false)
        default: return .failed(.general, error.description ?? error.error, canRetry: false)
        }
    }
}
