import Foundation

/// Where ``MSALNativeAuthPublicClientApplication/signUp(parameters:)`` left the sign-up.
public enum SignUpStartOutcome: Sendable {
    /// Submit the code sent to the new user's email on the state.
    case codeRequired(MSALNativeAuthCodeRequired<SignUpCodeRequiredState>)
    /// The attributes given were rejected (their names): start again with valid ones.
    case attributesInvalid([String])
}

/// Where a sign-up step left the sign-up.
public enum SignUpContinueOutcome: Sendable {
    /// The account exists: sign in with the state (no second code or password).
    case completed(SignInAfterSignUpState)
    /// Submit a password on the state.
    case passwordRequired(SignUpPasswordRequiredState)
    /// Submit these attributes on the state.
    case attributesRequired([MSALNativeAuthRequiredAttribute], SignUpAttributesRequiredState)
    /// These attributes were rejected: submit valid ones on the state.
    case attributesInvalid([String], SignUpAttributesRequiredState)
}

/// What the sign-up states share: the flow's session and the application.
public class SignUpBaseState: @unchecked Sendable {
    let session: NativeFlowSession<NativeSignUpFlow>
    let application: MSALNativeAuthPublicClientApplication
    let username: String

    init(session: NativeFlowSession<NativeSignUpFlow>, application: MSALNativeAuthPublicClientApplication, username: String) {
        self.session = session
        self.application = application
        self.username = username
    }

    var correlationId: UUID { session.correlationId }

    typealias Continued<E: MSALNativeAuthError> = Result<Carried<SignUpContinueOutcome>, NativeAuthFailure<E>>

    func continued<E: MSALNativeAuthError>(_ input: @escaping @Sendable (inout NativeSignUpFlow) -> NativeFlowStep) async -> Continued<E> {
        let outcome = await session.advance(input)
        let state = { SignUpAttributesRequiredState(session: self.session, application: self.application, username: self.username) }
        switch outcome.step {
        case .completed(let token):
            return .success(Carried(.completed(SignInAfterSignUpState(flow: NativeSignInAfterFlow(
                application: application, continuationToken: token, username: username, correlationId: correlationId)))))
        case .passwordRequired:
            return .success(Carried(.passwordRequired(SignUpPasswordRequiredState(session: session, application: application, username: username))))
        case .attributesRequired(let attributes):
            return .success(Carried(.attributesRequired(NativeFlowOutcomes.attributes(attributes), state())))
        case .attributesInvalid(let names, _):
            return .success(Carried(.attributesInvalid(names, state())))
        default:
            return .failure(NativeFlowOutcomes.failure(outcome.step, service: outcome.service, correlationId: correlationId))
        }
    }

    @MainActor
    static func deliver<E>(_ result: Continued<E>, completed: (SignInAfterSignUpState) -> Void,
                           password: (SignUpPasswordRequiredState) -> Void,
                           attributesRequired: ([MSALNativeAuthRequiredAttribute], SignUpAttributesRequiredState) -> Void,
                           attributesInvalid: ([String], SignUpAttributesRequiredState) -> Void, failed: (NativeAuthFailure<E>) -> Void,
                           missing: @escaping @MainActor @Sendable (String) -> Void) {
        switch result {
        case .success(let carried):
            // A shared callback the app did not implement (SignUpProgressDelegate) reports through `missing`.
            NativeAuthMissingCallback.reporting(missing) {
                switch carried.value {
                case .completed(let state): completed(state)
                case .passwordRequired(let state): password(state)
                case .attributesRequired(let attributes, let state): attributesRequired(attributes, state)
                case .attributesInvalid(let names, let state): attributesInvalid(names, state)
                }
            }
        case .failure(let failure): failed(failure)
        }
    }
}

/// The sign-up waits for the code sent to the new user's email.
public final class SignUpCodeRequiredState: SignUpBaseState, @unchecked Sendable {
    /// Submits the code the user typed.
    public func submitCode(code: String, delegate: any SignUpVerifyCodeDelegate) {
        MainActorDelegate.run(delegate, { await self.submitCodeResult(code) }) { delegate, result in
            SignUpBaseState.deliver(result, completed: { delegate.onSignUpCompleted(newState: $0) },
                                    password: { delegate.onSignUpPasswordRequired(newState: $0) },
                                    attributesRequired: { delegate.onSignUpAttributesRequired(attributes: $0, newState: $1) },
                                    attributesInvalid: { _, state in
                                        delegate.onSignUpVerifyCodeError(error: VerifyCodeError(.general, message: "Attributes were rejected.",
                                                                                                correlationId: state.correlationId), newState: nil)
                                    },
                                    failed: { delegate.onSignUpVerifyCodeError(error: $0.error, newState: $0.canRetry ? self : nil) },
                                    missing: { [box = MainActorDelegate(delegate: delegate), id = self.correlationId] in
                                        box.delegate.onSignUpVerifyCodeError(error: VerifyCodeError(.general, message: $0, correlationId: id), newState: nil)
                                    })
        }
    }

    /// Submits the code the user typed; after a wrong one (``VerifyCodeError/isInvalidCode``) this state takes another.
    public func submitCode(code: String) async throws(VerifyCodeError) -> SignUpContinueOutcome {
        try await submitCodeResult(code).unwrap().value
    }

    /// Sends a new code.
    public func resendCode(delegate: any SignUpResendCodeDelegate) {
        MainActorDelegate.run(delegate, { await self.resendCodeResult() }) { delegate, result in
            switch result {
            case .success(let carried):
                let sent = carried.value
                delegate.onSignUpResendCodeCodeRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                        channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
            case .failure(let failure): delegate.onSignUpResendCodeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Sends a new code; the state it returns takes it.
    public func resendCode() async throws(ResendCodeError) -> MSALNativeAuthCodeRequired<SignUpCodeRequiredState> {
        try await resendCodeResult().unwrap().value
    }

    private func submitCodeResult(_ code: String) async -> Continued<VerifyCodeError> {
        await continued { $0.submitCode(code) }
    }

    private func resendCodeResult() async -> Result<Carried<MSALNativeAuthCodeRequired<SignUpCodeRequiredState>>, NativeAuthFailure<ResendCodeError>> {
        let outcome = await session.advance { $0.resendCode() }
        guard case .codeRequired(let sentTo, let channel, let length) = outcome.step else {
            return .failure(NativeFlowOutcomes.failure(outcome.step, service: outcome.service, correlationId: correlationId))
        }
        return .success(Carried(MSALNativeAuthCodeRequired(
            newState: SignUpCodeRequiredState(session: session, application: application, username: username),
            sentTo: sentTo, channelTargetType: NativeFlowOutcomes.channel(channel), codeLength: length)))
    }
}

/// The sign-up waits for the new user's password.
public final class SignUpPasswordRequiredState: SignUpBaseState, @unchecked Sendable {
    public func submitPassword(password: String, delegate: any SignUpPasswordRequiredDelegate) {
        MainActorDelegate.run(delegate, { await self.submitPasswordResult(password) }) { delegate, result in
            SignUpBaseState.deliver(result, completed: { delegate.onSignUpCompleted(newState: $0) },
                                    password: { _ in },
                                    attributesRequired: { delegate.onSignUpAttributesRequired(attributes: $0, newState: $1) },
                                    attributesInvalid: { delegate.onSignUpAttributesRequired(attributes: $0.map {
                                        MSALNativeAuthRequiredAttribute(name: $0, type: "string", required: true, regex: nil) }, newState: $1) },
                                    failed: { delegate.onSignUpPasswordRequiredError(error: $0.error, newState: $0.canRetry ? self : nil) },
                                    missing: { [box = MainActorDelegate(delegate: delegate), id = self.correlationId] in
                                        box.delegate.onSignUpPasswordRequiredError(error: PasswordRequiredError(.general, message: $0, correlationId: id),
                                                                                   newState: nil)
                                    })
        }
    }

    /// Submits the password; after one the tenant's policy rejects (``PasswordRequiredError/isInvalidPassword``) this
    /// state takes another.
    public func submitPassword(password: String) async throws(PasswordRequiredError) -> SignUpContinueOutcome {
        try await submitPasswordResult(password).unwrap().value
    }

    private func submitPasswordResult(_ password: String) async -> Continued<PasswordRequiredError> {
        await continued { $0.submitPassword(password) }
    }
}

/// The sign-up waits for the attributes the tenant's user flow requires.
public final class SignUpAttributesRequiredState: SignUpBaseState, @unchecked Sendable {
    /// Submits attributes by programmable name: strings, numbers or booleans (any other value is a general error).
    public func submitAttributes(attributes: [String: Any], delegate: any SignUpAttributesRequiredDelegate) {
        let json = NativeFlowOutcomes.attributesJSON(attributes)
        MainActorDelegate.run(delegate, { await self.submitAttributesResult(json) }) { delegate, result in
            SignUpBaseState.deliver(result, completed: { delegate.onSignUpCompleted(newState: $0) },
                                    password: { _ in },
                                    attributesRequired: { delegate.onSignUpAttributesRequired(attributes: $0, newState: $1) },
                                    attributesInvalid: { delegate.onSignUpAttributesInvalid(attributeNames: $0, newState: $1) },
                                    failed: { delegate.onSignUpAttributesRequiredError(error: $0.error) },
                                    missing: { [box = MainActorDelegate(delegate: delegate), id = self.correlationId] in
                                        box.delegate.onSignUpAttributesRequiredError(error: AttributesRequiredError(.general, message: $0, correlationId: id))
                                    })
        }
    }

    /// Submits attributes by programmable name: strings, numbers or booleans (any other value is a general error).
    public func submitAttributes(attributes: [String: Any]) async throws(AttributesRequiredError) -> SignUpContinueOutcome {
        try await submitAttributesResult(NativeFlowOutcomes.attributesJSON(attributes)).unwrap().value
    }

    /// Continues with the attributes' JSON text; nil: a value was not a string, number or boolean.
    private func submitAttributesResult(_ json: String?) async -> Continued<AttributesRequiredError> {
        guard let json else {
            return .failure(NativeAuthFailure(error: AttributesRequiredError(.general, message: "Attribute values must be strings, numbers or booleans.",
                                                                             correlationId: correlationId), canRetry: true))
        }
        return await continued { $0.submitAttributes(json) }
    }
}

/// The account was created: signs the new user in without a second code or password (once).
public final class SignInAfterSignUpState: @unchecked Sendable {
    let flow: NativeSignInAfterFlow

    init(flow: NativeSignInAfterFlow) { self.flow = flow }

    var correlationId: UUID { flow.correlationId }

    public func signIn(parameters: MSALNativeAuthSignInAfterSignUpParameters, delegate: any SignInAfterSignUpDelegate) {
        let scopes = parameters.scopes
        let claims = parameters.claimsRequest
        MainActorDelegate.run(delegate, { await self.flow.signIn(scopes: scopes, claimsRequest: claims) as Result<Carried<SignInOutcome>, NativeAuthFailure<SignInAfterSignUpError>> }) { delegate, result in
            switch result {
            case .success(let outcome):
                let (box, id) = (MainActorDelegate(delegate: delegate), self.correlationId)
                outcome.value.deliver(delegate, completed: { delegate.onSignInCompleted(result: $0) }) {
                    box.delegate.onSignInAfterSignUpError(error: SignInAfterSignUpError(.general, message: $0, correlationId: id))
                }
            case .failure(let failure): delegate.onSignInAfterSignUpError(error: failure.error)
            }
        }
    }

    /// Signs the new user in (MSAL for iOS/macOS's earlier form).
    public func signIn(scopes: [String]? = nil, delegate: any SignInAfterSignUpDelegate) {
        let parameters = MSALNativeAuthSignInAfterSignUpParameters()
        parameters.scopes = scopes
        signIn(parameters: parameters, delegate: delegate)
    }

    /// Signs the new user in.
    public func signIn(parameters: MSALNativeAuthSignInAfterSignUpParameters = MSALNativeAuthSignInAfterSignUpParameters())
        async throws(SignInAfterSignUpError) -> SignInOutcome {
        let result: Result<Carried<SignInOutcome>, NativeAuthFailure<SignInAfterSignUpError>> =
            await flow.signIn(scopes: parameters.scopes, claimsRequest: parameters.claimsRequest)
        return try result.unwrap().value
    }
}
