import Foundation

/// A one-time passcode was sent: the state to submit it on, where it went (masked), and how many characters it has.
public struct MSALNativeAuthCodeRequired<State: Sendable>: Sendable {
    public let newState: State
    public let sentTo: String
    public let channelTargetType: MSALNativeAuthChannelType
    public let codeLength: Int

    public init(newState: State, sentTo: String, channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        self.newState = newState
        self.sentTo = sentTo
        self.channelTargetType = channelTargetType
        self.codeLength = codeLength
    }
}

/// Where ``MSALNativeAuthPublicClientApplication/signIn(parameters:)`` left the sign-in.
public enum SignInStartOutcome: Sendable {
    /// Submit the code sent to the user on the state.
    case codeRequired(MSALNativeAuthCodeRequired<SignInCodeRequiredState>)
    /// Submit the user's password on the state.
    case passwordRequired(SignInPasswordRequiredState)
    /// The user is signed in.
    case completed(MSALNativeAuthUserAccountResult)
    /// The password given was right; a second factor is needed (see ``SignInOutcome/awaitingMFA(authMethods:newState:)``).
    case awaitingMFA(authMethods: [MSALAuthMethod], newState: AwaitingMFAState)
    /// The password given was right; the user must register a strong method first.
    case strongAuthMethodRegistration(authMethods: [MSALAuthMethod], newState: RegisterStrongAuthState)
}

/// The sign-in waits for the one-time passcode sent to the user. A wrong code leaves the state usable: submit
/// another, or ask for a new one.
public final class SignInCodeRequiredState: Sendable {
    let session: NativeSignInSession
    let application: MSALPublicClientApplication

    init(session: NativeSignInSession, application: MSALPublicClientApplication) {
        self.session = session
        self.application = application
    }

    var correlationId: UUID { session.correlationId }

    /// Submits the code the user typed.
    public func submitCode(code: String, delegate: any SignInVerifyCodeDelegate) {
        MainActorDelegate.run(delegate, { await self.submitCodeResult(code) }) { delegate, result in
            switch result {
            case .success(let outcome):
                let (box, id) = (MainActorDelegate(delegate: delegate), self.correlationId)
                outcome.value.deliver(delegate, completed: { delegate.onSignInCompleted(result: $0) }) {
                    box.delegate.onSignInVerifyCodeError(error: VerifyCodeError(.general, message: $0, correlationId: id), newState: nil)
                }
            case .failure(let failure): delegate.onSignInVerifyCodeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Submits the code the user typed; after a wrong code (``VerifyCodeError/isInvalidCode``) this state takes
    /// another.
    public func submitCode(code: String) async throws(VerifyCodeError) -> SignInOutcome {
        try await submitCodeResult(code).unwrap().value
    }

    /// Sends a new code (the previous one no longer works).
    public func resendCode(delegate: any SignInResendCodeDelegate) {
        MainActorDelegate.run(delegate, { await self.resendCodeResult() }) { delegate, result in
            switch result {
            case .success(let carried):
                let sent = carried.value
                delegate.onSignInResendCodeCodeRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                        channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
            case .failure(let failure): delegate.onSignInResendCodeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Sends a new code; the state it returns takes it.
    public func resendCode() async throws(ResendCodeError) -> MSALNativeAuthCodeRequired<SignInCodeRequiredState> {
        try await resendCodeResult().unwrap().value
    }

    private func submitCodeResult(_ code: String) async -> Result<Carried<SignInOutcome>, NativeAuthFailure<VerifyCodeError>> {
        NativeSignInOutcomes.signedIn(await session.submitCode(code), application: application, session: session)
    }

    private func resendCodeResult() async -> Result<Carried<MSALNativeAuthCodeRequired<SignInCodeRequiredState>>, NativeAuthFailure<ResendCodeError>> {
        NativeSignInOutcomes.codeRequired(await session.resendCode(), session: session) {
            SignInCodeRequiredState(session: session, application: application)
        }
    }
}

/// The sign-in waits for the user's password. A wrong password leaves the state usable.
public final class SignInPasswordRequiredState: Sendable {
    let session: NativeSignInSession
    let application: MSALPublicClientApplication

    init(session: NativeSignInSession, application: MSALPublicClientApplication) {
        self.session = session
        self.application = application
    }

    var correlationId: UUID { session.correlationId }

    /// Submits the password the user typed.
    public func submitPassword(password: String, delegate: any SignInPasswordRequiredDelegate) {
        MainActorDelegate.run(delegate, { await self.submitPasswordResult(password) }) { delegate, result in
            switch result {
            case .success(let outcome):
                let (box, id) = (MainActorDelegate(delegate: delegate), self.correlationId)
                outcome.value.deliver(delegate, completed: { delegate.onSignInCompleted(result: $0) }) {
                    box.delegate.onSignInPasswordRequiredError(error: PasswordRequiredError(.general, message: $0, correlationId: id), newState: nil)
                }
            case .failure(let failure):
                delegate.onSignInPasswordRequiredError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Submits the password the user typed; after a wrong one (``PasswordRequiredError/isInvalidPassword``) this
    /// state takes another.
    public func submitPassword(password: String) async throws(PasswordRequiredError) -> SignInOutcome {
        try await submitPasswordResult(password).unwrap().value
    }

    private func submitPasswordResult(_ password: String) async -> Result<Carried<SignInOutcome>, NativeAuthFailure<PasswordRequiredError>> {
        NativeSignInOutcomes.signedIn(await session.submitPassword(password), application: application, session: session)
    }
}

/// A value handed across tasks (results and states are Sendable; the box only satisfies `Result`'s shape).
struct Carried<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A failed step: its public error, and whether the state it was made on is still usable.
struct NativeAuthFailure<E: MSALNativeAuthError>: Error, Sendable {
    let error: E
    let canRetry: Bool
}

extension Result where Failure: Error {
    /// `get()`, throwing the public error of a ``NativeAuthFailure``.
    func unwrap<E>() throws(E) -> Success where Failure == NativeAuthFailure<E> {
        switch self {
        case .success(let value): return value
        case .failure(let failure): throw failure.error
        }
    }
}
