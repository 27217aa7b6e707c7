public import Foundation

extension MSALNativeAuthPublicClientApplication {
    // MARK: Sign-up

    /// Starts a sign-up: the new user's email, and the password and attributes when the app collected them up front.
    /// The delegate hears that a code was sent, or why the sign-up cannot start.
    public func signUp(parameters: MSALNativeAuthSignUpParameters, delegate: any SignUpStartDelegate) {
        let start = signUpStart(parameters)
        MainActorDelegate.run(delegate, { await start() }) { delegate, result in
            switch result {
            case .success(let outcome):
                switch outcome.value {
                case .codeRequired(let sent):
                    delegate.onSignUpCodeRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                  channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
                case .attributesInvalid(let names): delegate.onSignUpAttributesInvalid(attributeNames: names)
                }
            case .failure(let failure): delegate.onSignUpStartError(error: failure.error)
            }
        }
    }

    /// Starts a sign-up (MSAL for iOS/macOS's earlier form).
    public func signUp(username: String, password: String? = nil, attributes: [String: Any]? = nil,
                       correlationId: UUID? = nil, delegate: any SignUpStartDelegate) {
        let parameters = MSALNativeAuthSignUpParameters(username: username)
        parameters.password = password
        parameters.attributes = attributes
        parameters.correlationId = correlationId
        signUp(parameters: parameters, delegate: delegate)
    }

    /// Starts a sign-up and returns where it stands.
    public func signUp(parameters: MSALNativeAuthSignUpParameters) async throws(SignUpStartError) -> SignUpStartOutcome {
        try await signUpStart(parameters)().unwrap().value
    }

    private func signUpStart(_ parameters: MSALNativeAuthSignUpParameters)
        -> @Sendable () async -> Result<Carried<SignUpStartOutcome>, NativeAuthFailure<SignUpStartError>> {
        let correlationId = parameters.correlationId ?? CorrelationID.next()
        let username = parameters.username
        var attributesText: String?
        if let attributes = parameters.attributes {
            guard let json = NativeFlowOutcomes.attributesJSON(attributes) else {
                return { .failure(NativeAuthFailure(error: SignUpStartError(.general, message: "Attribute values must be strings, numbers or booleans.",
                                                                            correlationId: correlationId), canRetry: false)) }
            }
            attributesText = json
        }
        let client = native
        let flow = NativeSignUpFlow(username: username, password: parameters.password, attributes: attributesText,
                                    challengeTypes: client.challengeTypes, capabilities: client.capabilities.parameter)
        let session = NativeFlowSession(client: client, machine: flow, correlationId: correlationId)
        return { [self] in
            let outcome = await session.advance { $0.start() }
            switch outcome.step {
            case .codeRequired(let sentTo, let channel, let length):
                return .success(Carried(.codeRequired(MSALNativeAuthCodeRequired(
                    newState: SignUpCodeRequiredState(session: session, application: self, username: username),
                    sentTo: sentTo, channelTargetType: NativeFlowOutcomes.channel(channel), codeLength: length))))
            case .attributesInvalid(let names, _):
                return .success(Carried(.attributesInvalid(names)))
            default:
                return .failure(NativeFlowOutcomes.failure(outcome.step, service: outcome.service, correlationId: correlationId))
            }
        }
    }

    // MARK: Password reset

    /// Starts a self-service password reset: a code is sent to the user's email.
    public func resetPassword(parameters: MSALNativeAuthResetPasswordParameters, delegate: any ResetPasswordStartDelegate) {
        let start = resetPasswordStart(parameters)
        MainActorDelegate.run(delegate, { await start() }) { delegate, result in
            switch result {
            case .success(let carried):
                let sent = carried.value
                delegate.onResetPasswordCodeRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                     channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
            case .failure(let failure): delegate.onResetPasswordStartError(error: failure.error)
            }
        }
    }

    /// Starts a password reset (MSAL for iOS/macOS's earlier form).
    public func resetPassword(username: String, correlationId: UUID? = nil, delegate: any ResetPasswordStartDelegate) {
        let parameters = MSALNativeAuthResetPasswordParameters(username: username)
        parameters.correlationId = correlationId
        resetPassword(parameters: parameters, delegate: delegate)
    }

    /// Starts a password reset; the state it returns takes the code sent to the user.
    public func resetPassword(parameters: MSALNativeAuthResetPasswordParameters) async throws(ResetPasswordStartError)
        -> MSALNativeAuthCodeRequired<ResetPasswordCodeRequiredState> {
        try await resetPasswordStart(parameters)().unwrap().value
    }

    private func resetPasswordStart(_ parameters: MSALNativeAuthResetPasswordParameters)
        -> @Sendable () async -> Result<Carried<MSALNativeAuthCodeRequired<ResetPasswordCodeRequiredState>>, NativeAuthFailure<ResetPasswordStartError>> {
        let correlationId = parameters.correlationId ?? CorrelationID.next()
        let username = parameters.username
        let client = native
        let flow = NativeResetPasswordFlow(username: username, challengeTypes: client.challengeTypes,
                                           capabilities: client.capabilities.parameter)
        let session = NativeFlowSession(client: client, machine: flow, correlationId: correlationId)
        let base = ResetPasswordBaseState(session: session, application: self, username: username)
        return { base.codeRequired(await session.advance { $0.start() }) }
    }
}
