import Foundation

/// One native sign-in in progress: its state machines (``NativeSignInFlow``, then ``NativeStrongAuthFlow`` when the
/// tenant wants a second factor or a strong method registered) driven against the service through the app's
/// ``NativeAuthClient``. The state objects an app holds share it; an actor, so that two calls on one state cannot
/// interleave their changes of the machine.
actor NativeSignInSession {
    /// Where a call left the sign-in.
    enum Outcome: Sendable {
        case codeRequired(sentTo: String, channel: String, codeLength: Int)
        case passwordRequired
        /// The tenant wants a second factor (`multiFactor`) or a strong method registered first: the app picks
        /// one of `methods`.
        case methodsListed(NativeStrongAuthFlow.Kind, [NativeAuthMethod])
        case completed(MSALResult)
        /// `canRetry`: the state the call was made on is still usable (a wrong code or password).
        case failed(NativeAuthErrorKind, message: String?, service: NativeServiceErrorDetails, canRetry: Bool)
    }

    let client: NativeAuthClient
    let correlationId: UUID
    /// The scopes the sign-in asked for (the app's).
    let scopes: [String]
    private var flow: NativeSignInFlow
    /// The second factor or registration, once the first factor passed and the tenant asked for it.
    private var strongAuth: NativeStrongAuthFlow?
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
    /// The sign-in after a sign-up or a password reset.
    func startAfterFlow(continuationToken: String) async -> Outcome {
        await drive(flow.startAfterFlow(continuationToken: continuationToken))
    }

    /// A code to a second-factor method.
    func requestChallenge(_ method: NativeAuthMethod) async -> Outcome {
        await driveStrong { $0.requestChallenge(method) }
    }

    /// A strong method to register, with the contact its codes go to.
    func challengeContact(_ method: NativeAuthMethod, contact: String) async -> Outcome {
        await driveStrong { $0.challengeContact(method, contact: contact) }
    }

    /// The code of the second factor or of the registration.
    func submitChallenge(_ code: String) async -> Outcome {
        await driveStrong { $0.submitCode(code) }
    }

    /// Runs the machine's steps until it asks the app for something, completes, or fails.
    private func drive(_ first: NativeSignInFlow.Step) async -> Outcome {
        var step = first
        lastServerError = nil
        for _ in 0..<NativeAuthLimits.requestsPerCall {
            switch step {
            case .initiate(let username, let types):
                var form = [("username", username), ("challenge_type", types)]
                if let capabilities = client.capabilities.parameter { form.append(("capabilities", capabilities)) }
                step = flow.received(note(await client.post("oauth2/v2.0/initiate", form, correlationId: correlationId)))
            case .challenge(let token, let types):
                step = flow.received(note(await client.post("oauth2/v2.0/challenge",
                                                            [("continuation_token", token), ("challenge_type", types)],
                                                            correlationId: correlationId)))
            case .redeemPassword(let grant as any TokenGrant), .redeemCode(let grant as any TokenGrant),
                 .redeemContinuation(let grant as any TokenGrant):
                switch flow.apply(await redeemed(grant)) {
                case .next(let next): step = next
                case .done(let result): return .completed(result)
                }
            case .strongAuthRequired(let kind, let token):
                let machine = NativeStrongAuthFlow(kind: kind, continuationToken: token, clientId: client.clientId,
                                                   username: flow.username, scopes: flow.scopes,
                                                   challengeTypes: flow.challengeTypes, claims: flow.claims)
                strongAuth = machine
                return await driveStrong { $0.start() }
            case .codeRequired(let sentTo, let channel, let codeLength):
                return .codeRequired(sentTo: sentTo, channel: channel, codeLength: codeLength)
            case .passwordRequired:
                return .passwordRequired
            case .failed(let error, let canRetry):
                return failure(error, canRetry: canRetry)
            }
        }
        return .failed(.general, message: NativeAuthLimits.message, service: lastServerError?.details ?? NativeServiceErrorDetails(),
                       canRetry: false)
    }

    /// Runs the strong-authentication machine from `first` (a call on it) until it asks the app for something,
    /// completes, or fails.
    private func driveStrong(_ first: (inout NativeStrongAuthFlow) -> NativeStrongAuthFlow.Step) async -> Outcome {
        guard var machine = strongAuth else {
            return .failed(.general, message: "No second factor or registration is in progress.", service: NativeServiceErrorDetails(), canRetry: false)
        }
        lastServerError = nil
        var step = first(&machine)
        strongAuth = machine
        for _ in 0..<NativeAuthLimits.requestsPerCall {
            switch step {
            case .introspect(let path, let token):
                step = await strongStep { $0.received(await self.post(path, [("continuation_token", token)])) }
            case .challengeMethod(let token, let id, let types):
                step = await strongStep {
                    $0.received(await self.post("oauth2/v2.0/challenge", [("continuation_token", token), ("challenge_type", types), ("id", id)]))
                }
            case .challengeContact(let token, let method, let contact, let types):
                let form = [("continuation_token", token), ("challenge_type", types), ("challenge_target", contact),
                            ("challenge_channel", method.channel)]
                step = await strongStep { $0.received(await self.post("register/v1.0/challenge", form)) }
            case .registerContinue(let token, let code):
                var form = [("continuation_token", token)]
                form += code.map { [("grant_type", "oob"), ("oob", $0)] } ?? [("grant_type", "continuation_token")]
                step = await strongStep { $0.received(await self.post("register/v1.0/continue", form)) }
            case .redeemCode(let grant as any TokenGrant), .redeemContinuation(let grant as any TokenGrant):
                switch strongAuth?.apply(await redeemed(grant)) {
                case .next(let next)?: step = next
                case .done(let result)?: return .completed(result)
                case nil: return .failed(.general, message: "No step is in progress.", service: NativeServiceErrorDetails(), canRetry: false)
                }
            case .methodsListed(let methods):
                return .methodsListed(machine.kind, methods)
            case .codeRequired(let sentTo, let channel, let length):
                return .codeRequired(sentTo: sentTo, channel: channel, codeLength: length)
            case .failed(let kind, let message, let canRetry):
                let service = lastServerError?.details ?? NativeServiceErrorDetails()
                return .failed(kind, message: message, service: service, canRetry: canRetry)
            }
        }
        return .failed(.general, message: NativeAuthLimits.message, service: lastServerError?.details ?? NativeServiceErrorDetails(),
                       canRetry: false)
    }

    /// Applies `change` (which may await the service) to the strong-authentication machine.
    private func strongStep(_ change: (inout NativeStrongAuthFlow) async -> NativeStrongAuthFlow.Step) async -> NativeStrongAuthFlow.Step {
        guard var machine = strongAuth else { return .failed(.general, message: "No step is in progress.", canRetry: false) }
        let step = await change(&machine)
        strongAuth = machine
        return step
    }

    private func post(_ path: String, _ form: [(String, String)]) async -> NativeAuthAnswer {
        note(await client.post(path, form, correlationId: correlationId))
    }

    /// Redeems `grant`: a signed-in account becomes the app's only one; a service error is kept for the public
    /// error's codes.
    private func redeemed(_ grant: any TokenGrant) async -> NativeAuthClient.Redeemed {
        let outcome = await client.redeem(grant, scopes: flow.scopes, correlationId: correlationId)
        switch outcome {
        case .signedIn(let result): client.keepOnly(result.account)
        case .rejected(let error): lastServerError = error
        case .browserRequired, .failed: break
        }
        return outcome
    }

    private func note(_ answer: NativeAuthAnswer) -> NativeAuthAnswer {
        if case .error(let error) = answer { lastServerError = error }
        return answer
    }

    private func failure(_ error: NativeSignInError, canRetry: Bool) -> Outcome {
        let service = lastServerError?.details ?? NativeServiceErrorDetails()
        let described = lastServerError?.description
        switch error {
        case .browserRequired(let reason): return .failed(.browserRequired, message: reason, service: service, canRetry: false)
        case .userNotFound: return .failed(.userNotFound, message: described, service: service, canRetry: canRetry)
        case .invalidCredentials: return .failed(.invalidCredentials, message: described, service: service, canRetry: canRetry)
        case .invalidUsername: return .failed(.invalidUsername, message: nil, service: service, canRetry: canRetry)
        case .invalidCode: return .failed(.invalidCode, message: described, service: service, canRetry: canRetry)
        case .invalidPassword: return .failed(.invalidPassword, message: described, service: service, canRetry: canRetry)
        case .general(let message): return .failed(.general, message: message, service: service, canRetry: canRetry)
        }
    }
}
