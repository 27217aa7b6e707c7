import Foundation

/// One native sign-in in progress: its state machine (``NativeSignInFlow``) driven against the service through the
/// app's ``NativeAuthClient``. The state objects an app holds share it; an actor, so that two calls on one state
/// cannot interleave their changes of the machine.
actor NativeSignInSession {
    /// Where a call left the sign-in.
    enum Outcome: Sendable {
        case codeRequired(sentTo: String, channel: String, codeLength: Int)
        case passwordRequired
        case completed(MSALResult)
        /// `canRetry`: the state the call was made on is still usable (a wrong code or password).
        case failed(NativeAuthErrorKind, message: String?, errorCodes: [Int], canRetry: Bool)
    }

    let client: NativeAuthClient
    let correlationId: UUID
    /// The scopes the sign-in asked for (the app's).
    let scopes: [String]
    private var flow: NativeSignInFlow
    /// The last OAuth error the service answered, for the error codes of the public error.
    private var lastServerError: NativeAuthServerError?

    init(client: NativeAuthClient, username: String, password: String?, scopes: [String], claims: String?,
         correlationId: UUID) {
        self.client = client
        self.correlationId = correlationId
        self.scopes = scopes
        flow = NativeSignInFlow(clientId: client.clientId, username: username, password: password, scopes: scopes,
                                challengeTypes: client.challengeTypes, claims: claims)
    }


    func start() async -> Outcome { await drive(flow.start()) }
    func submitCode(_ code: String) async -> Outcome { await drive(flow.submitCode(code)) }
    func submitPassword(_ password: String) async -> Outcome { await drive(flow.submitPassword(password)) }
    func resendCode() async -> Outcome { await drive(flow.resendCode()) }

    /// Runs the machine's steps until it asks the app for something, completes, or fails.
    private func drive(_ first: NativeSignInFlow.Step) async -> Outcome {
        var step = first
        lastServerError = nil
        while true {
            switch step {
            case .initiate(let username, let types):
                var form = [("username", username), ("challenge_type", types)]
                if let capabilities = client.capabilities.parameter { form.append(("capabilities", capabilities)) }
                step = flow.received(note(await client.post("oauth2/v2.0/initiate", form, correlationId: correlationId)))
            case .challenge(let token, let types):
                step = flow.received(note(await client.post("oauth2/v2.0/challenge",
                                                            [("continuation_token", token), ("challenge_type", types)],
                                                            correlationId: correlationId)))
            case .redeemPassword(let grant):
                switch await redeem(grant) {
                case .next(let next): step = next
                case .done(let result): return .completed(result)
                }
            case .redeemCode(let grant):
                switch await redeem(grant) {
                case .next(let next): step = next
                case .done(let result): return .completed(result)
                }
            case .codeRequired(let sentTo, let channel, let codeLength):
                return .codeRequired(sentTo: sentTo, channel: channel, codeLength: codeLength)
            case .passwordRequired:
                return .passwordRequired
            case .failed(let error, let canRetry):
                return failure(error, canRetry: canRetry)
            }
        }
    }

    private enum Redeemed {
        case next(NativeSignInFlow.Step)
        case done(MSALResult)
    }

    private func redeem(_ grant: some TokenGrant) async -> Redeemed {
        switch await client.redeem(grant, scopes: flow.scopes, correlationId: correlationId) {
        case .signedIn(let result):
            flow.redeemed()
            client.keepOnly(result.account)
            return .done(result)
        case .rejected(let error):
            lastServerError = error
            return .next(flow.redeemFailed(error))
        case .browserRequired(let reason):
            return .next(flow.received(.browserRequired(reason: reason)))
        case .failed(let why):
            return .next(flow.redeemInterrupted(why))
        }
    }

    private func note(_ answer: NativeAuthAnswer) -> NativeAuthAnswer {
        if case .error(let error) = answer { lastServerError = error }
        return answer
    }

    private func failure(_ error: NativeSignInError, canRetry: Bool) -> Outcome {
        let codes = lastServerError?.errorCodes ?? []
        let described = lastServerError?.description
        switch error {
        case .browserRequired(let reason): return .failed(.browserRequired, message: reason, errorCodes: codes, canRetry: false)
        case .userNotFound: return .failed(.userNotFound, message: described, errorCodes: codes, canRetry: canRetry)
        case .invalidCredentials: return .failed(.invalidCredentials, message: described, errorCodes: codes, canRetry: canRetry)
        case .invalidUsername: return .failed(.invalidUsername, message: nil, errorCodes: codes, canRetry: canRetry)
        case .invalidCode: return .failed(.invalidCode, message: described, errorCodes: codes, canRetry: canRetry)
        case .invalidPassword: return .failed(.invalidPassword, message: described, errorCodes: codes, canRetry: canRetry)
        case .general(let message): return .failed(.general, message: message, errorCodes: codes, canRetry: canRetry)
        }
    }
}
