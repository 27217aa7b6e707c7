import Foundation

/// What the password-reset states share: the flow's session and the application.
public class ResetPasswordBaseState: @unchecked Sendable {
    let session: NativeFlowSession<NativeResetPasswordFlow>
    let application: MSALNativeAuthPublicClientApplication
    let username: String

    init(session: NativeFlowSession<NativeResetPasswordFlow>, application: MSALNativeAuthPublicClientApplication, username: String) {
        self.session = session
        self.application = application
        self.username = username
    }

    var correlationId: UUID { session.correlationId }

    func codeRequired<E: MSALNativeAuthError>(_ outcome: NativeFlowSession<NativeResetPasswordFlow>.Outcome)
        -> Result<Carried<MSALNativeAuthCodeRequired<ResetPasswordCodeRequiredState>>, NativeAuthFailure<E>> {
        guard case .codeRequired(let sentTo, let channel, let length) = outcome.step else {
            return .failure(NativeFlowOutcomes.failure(outcome.step, service: outcome.service, correlationId: correlationId))
        }
        return .success(Carried(MSALNativeAuthCodeRequired(
            newState: ResetPasswordCodeRequiredState(session: session, application: application, username: username),
            sentTo: sentTo, channelTargetType: NativeFlowOutcomes.channel(channel), codeLength: length)))
    }
}

/// The password reset waits for the code sent to the user's email.
public final class ResetPasswordCodeRequiredState: ResetPasswordBaseState, @unchecked Sendable {
    public func submitCode(code: String, delegate: any ResetPasswordVerifyCodeDelegate) {
        MainActorDelegate.run(delegate, { await self.submitCodeResult(code) }) { delegate, result in
            switch result {
            case .success(let state): delegate.onPasswordRequired(newState: state.value)
            case .failure(let failure): delegate.onResetPasswordVerifyCodeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Submits the code; the state it returns takes the new password.
    public func submitCode(code: String) async throws(VerifyCodeError) -> ResetPasswordRequiredState {
        try await submitCodeResult(code).unwrap().value
    }

    public func resendCode(delegate: any ResetPasswordResendCodeDelegate) {
        MainActorDelegate.run(delegate, { await self.resendCodeResult() }) { delegate, result in
            switch result {
            case .success(let carried):
                let sent = carried.value
                delegate.onResetPasswordResendCodeRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                           channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
            case .failure(let failure): delegate.onResetPasswordResendCodeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    public func resendCode() async throws(ResendCodeError) -> MSALNativeAuthCodeRequired<ResetPasswordCodeRequiredState> {
        try await resendCodeResult().unwrap().value
    }

    private func submitCodeResult(_ code: String) async -> Result<Carried<ResetPasswordRequiredState>, NativeAuthFailure<VerifyCodeError>> {
        let outcome = await session.advance { $0.submitCode(code) }
        guard case .passwordRequired = outcome.step else {
            return .failure(NativeFlowOutcomes.failure(outcome.step, service: outcome.service, correlationId: correlationId))
        }
        return .success(Carried(ResetPasswordRequiredState(session: session, application: application, username: username)))
    }

    private func resendCodeResult() async -> Result<Carried<MSALNativeAuthCodeRequired<ResetPasswordCodeRequiredState>>, NativeAuthFailure<ResendCodeError>> {
        codeRequired(await session.advance { $0.resendCode() })
    }
}

/// The password reset waits for the new password.
public final class ResetPasswordRequiredState: ResetPasswordBaseState, @unchecked Sendable {
    public func submitPassword(password: String, delegate: any ResetPasswordRequiredDelegate) {
        MainActorDelegate.run(delegate, { await self.submitPasswordResult(password) }) { delegate, result in
            switch result {
            case .success(let state): delegate.onResetPasswordCompleted(newState: state.value)
            case .failure(let failure): delegate.onResetPasswordRequiredError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Submits the new password and waits until the service applied it; after one the tenant's policy rejects
    /// (``PasswordRequiredError/isInvalidPassword``) this state takes another.
    public func submitPassword(password: String) async throws(PasswordRequiredError) -> SignInAfterResetPasswordState {
        try await submitPasswordResult(password).unwrap().value
    }

    private func submitPasswordResult(_ password: String) async -> Result<Carried<SignInAfterResetPasswordState>, NativeAuthFailure<PasswordRequiredError>> {
        let outcome = await session.advance { $0.submitPassword(password) }
        guard case .completed(let token) = outcome.step else {
            return .failure(NativeFlowOutcomes.failure(outcome.step, service: outcome.service, correlationId: correlationId))
        }
        return .success(Carried(SignInAfterResetPasswordState(flow: NativeSignInAfterFlow(
            application: application, continuationToken: token, username: username, correlationId: correlationId))))
    }
}

/// The password was reset: signs the user in without a second code or password (once).
public final class SignInAfterResetPasswordState: @unchecked Sendable {
    let flow: NativeSignInAfterFlow

    init(flow: NativeSignInAfterFlow) { self.flow = flow }

    var correlationId: UUID { flow.correlationId }

    public func signIn(parameters: MSALNativeAuthSignInAfterResetPasswordParameters, delegate: any SignInAfterResetPasswordDelegate) {
        let scopes = parameters.scopes
        let claims = parameters.claimsRequest
        MainActorDelegate.run(delegate, { await self.flow.signIn(scopes: scopes, claimsRequest: claims) as Result<Carried<SignInOutcome>, NativeAuthFailure<SignInAfterResetPasswordError>> }) { delegate, result in
            switch result {
            case .success(let outcome):
                let (box, id) = (MainActorDelegate(delegate: delegate), self.correlationId)
                outcome.value.deliver(delegate, completed: { delegate.onSignInCompleted(result: $0) }) {
                    box.delegate.onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError(.general, message: $0, correlationId: id))
                }
            case .failure(let failure): delegate.onSignInAfterResetPasswordError(error: failure.error)
            }
        }
    }

    /// Signs the user in (MSAL for iOS/macOS's earlier form).
    public func signIn(scopes: [String]? = nil, delegate: any SignInAfterResetPasswordDelegate) {
        let parameters = MSALNativeAuthSignInAfterResetPasswordParameters()
        parameters.scopes = scopes
        signIn(parameters: parameters, delegate: delegate)
    }

    /// Signs the user in.
    public func signIn(parameters: MSALNativeAuthSignInAfterResetPasswordParameters = MSALNativeAuthSignInAfterResetPasswordParameters())
        async throws(SignInAfterResetPasswordError) -> SignInOutcome {
        let result: Result<Carried<SignInOutcome>, NativeAuthFailure<SignInAfterResetPasswordError>> =
            await flow.signIn(scopes: parameters.scopes, claimsRequest: parameters.claimsRequest)
        return try result.unwrap().value
    }
}
