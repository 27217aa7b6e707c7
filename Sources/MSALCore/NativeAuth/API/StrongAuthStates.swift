import Foundation

/// What the second-factor and registration states share: the sign-in's session and the application.
public class MFABaseState: @unchecked Sendable {
    let session: NativeSignInSession
    let application: MSALPublicClientApplication

    init(session: NativeSignInSession, application: MSALPublicClientApplication) {
        self.session = session
        self.application = application
    }

    var correlationId: UUID { session.correlationId }

    /// Asks for a code to `method`; the delegate hears where it went, or the error with an ``MFARequiredState``.
    func requestChallenge(_ method: MSALAuthMethod, delegate: any MFARequestChallengeDelegate) {
        MainActorDelegate.run(delegate, { await self.requestChallengeResult(method) }) { delegate, result in
            switch result {
            case .success(let carried):
                let sent = carried.value
                delegate.onMFARequestChallengeVerificationRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                                   channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
            case .failure(let failure):
                delegate.onMFARequestChallengeError(error: failure.error,
                                                    newState: failure.canRetry ? MFARequiredState(session: self.session, application: self.application) : nil)
            }
        }
    }

    func requestChallengeResult(_ method: MSALAuthMethod) async
        -> Result<Carried<MSALNativeAuthCodeRequired<MFARequiredState>>, NativeAuthFailure<MFARequestChallengeError>> {
        NativeSignInOutcomes.codeRequired(await session.requestChallenge(method.core), session: session) {
            MFARequiredState(session: session, application: application)
        }
    }
}

/// The user's first factor passed and the tenant wants a second: pick one of the methods the sign-in listed and ask
/// for a code.
public final class AwaitingMFAState: MFABaseState, @unchecked Sendable {
    /// Sends a code to `authMethod`.
    public func requestChallenge(authMethod: MSALAuthMethod, delegate: any MFARequestChallengeDelegate) {
        requestChallenge(authMethod, delegate: delegate)
    }

    /// Sends a code to `authMethod`; the state it returns takes the code. A blocked method
    /// (``MFARequestChallengeError/isAuthMethodBlocked``) leaves this state usable for another.
    public func requestChallenge(authMethod: MSALAuthMethod) async throws(MFARequestChallengeError)
        -> MSALNativeAuthCodeRequired<MFARequiredState> {
        try await requestChallengeResult(authMethod).unwrap().value
    }
}

/// A second-factor code was sent: submit it, or ask for another (to the same or another method).
public final class MFARequiredState: MFABaseState, @unchecked Sendable {
    /// Sends a new code to `authMethod`.
    public func requestChallenge(authMethod: MSALAuthMethod, delegate: any MFARequestChallengeDelegate) {
        requestChallenge(authMethod, delegate: delegate)
    }

    /// Sends a new code to `authMethod`.
    public func requestChallenge(authMethod: MSALAuthMethod) async throws(MFARequestChallengeError)
        -> MSALNativeAuthCodeRequired<MFARequiredState> {
        try await requestChallengeResult(authMethod).unwrap().value
    }

    /// Submits the code the user typed.
    public func submitChallenge(challenge: String, delegate: any MFASubmitChallengeDelegate) {
        MainActorDelegate.run(delegate, { await self.submitResult(challenge) }) { delegate, result in
            switch result {
            case .success(let account):
                NativeAuthMissingCallback.reporting({ [box = MainActorDelegate(delegate: delegate), id = account.value.correlationId] in
                    box.delegate.onMFASubmitChallengeError(error: MFASubmitChallengeError(.general, message: $0, correlationId: id), newState: nil)
                }) { delegate.onSignInCompleted(result: account.value) }
            case .failure(let failure): delegate.onMFASubmitChallengeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Submits the code the user typed; after a wrong one (``MFASubmitChallengeError/isInvalidChallenge``) this
    /// state takes another.
    public func submitChallenge(challenge: String) async throws(MFASubmitChallengeError) -> MSALNativeAuthUserAccountResult {
        try await submitResult(challenge).unwrap().value
    }

    private func submitResult(_ code: String) async -> Result<Carried<MSALNativeAuthUserAccountResult>, NativeAuthFailure<MFASubmitChallengeError>> {
        NativeSignInOutcomes.completed(await session.submitChallenge(code), application: application, session: session)
    }
}

/// Where registering a strong method left the sign-in.
public enum RegisterStrongAuthChallengeOutcome: Sendable {
    /// A code was sent to the contact: submit it on the result's state.
    case verificationRequired(MSALNativeAuthRegisterStrongAuthVerificationRequiredResult)
    /// The contact was already verified (the sign-in email): the method is registered and the user signed in.
    case completed(MSALNativeAuthUserAccountResult)
}

/// What the registration states share.
public class RegisterStrongAuthBaseState: MFABaseState, @unchecked Sendable {
    /// Registers the parameters' method with its contact.
    public func challengeAuthMethod(parameters: MSALNativeAuthChallengeAuthMethodParameters,
                                    delegate: any RegisterStrongAuthChallengeDelegate) {
        let method = parameters.authMethod
        let contact = parameters.verificationContact
        MainActorDelegate.run(delegate, { await self.challengeResult(method, contact) }) { delegate, result in
            switch result {
            case .success(.verificationRequired(let sent)): delegate.onRegisterStrongAuthVerificationRequired(result: sent)
            case .success(.completed(let account)):
                NativeAuthMissingCallback.reporting({ [box = MainActorDelegate(delegate: delegate), id = account.correlationId] in
                    box.delegate.onRegisterStrongAuthChallengeError(
                        error: RegisterStrongAuthChallengeError(.general, message: $0, correlationId: id), newState: nil)
                }) { delegate.onSignInCompleted(result: account) }
            case .failure(let failure):
                delegate.onRegisterStrongAuthChallengeError(
                    error: failure.error, newState: failure.canRetry ? RegisterStrongAuthState(session: self.session, application: self.application) : nil)
            }
        }
    }

    /// Registers the parameters' method with its contact. An invalid or blocked contact
    /// (``RegisterStrongAuthChallengeError/isInvalidInput``, ``RegisterStrongAuthChallengeError/isVerificationContactBlocked``)
    /// leaves the state usable for another.
    public func challengeAuthMethod(parameters: MSALNativeAuthChallengeAuthMethodParameters) async throws(RegisterStrongAuthChallengeError)
        -> RegisterStrongAuthChallengeOutcome {
        switch await challengeResult(parameters.authMethod, parameters.verificationContact) {
        case .success(let outcome): return outcome
        case .failure(let failure): throw failure.error
        }
    }

    private func challengeResult(_ method: MSALAuthMethod, _ contact: String) async
        -> Result<RegisterStrongAuthChallengeOutcome, NativeAuthFailure<RegisterStrongAuthChallengeError>> {
        let outcome = await session.challengeContact(method.core, contact: contact)
        switch outcome {
        case .codeRequired(let sentTo, let channel, let length):
            let state = RegisterStrongAuthVerificationRequiredState(session: session, application: application)
            return .success(.verificationRequired(MSALNativeAuthRegisterStrongAuthVerificationRequiredResult(
                newState: state, sentTo: sentTo, channelTargetType: MSALNativeAuthChannelType(value: channel), codeLength: length)))
        case .completed(let result):
            return .success(.completed(NativeSignInOutcomes.account(result, application: application, session: session)))
        default:
            return .failure(NativeSignInOutcomes.failure(outcome, correlationId: correlationId))
        }
    }
}

/// The user must register a strong method before the sign-in completes: give one of the methods listed and the
/// contact (an email address) its codes go to.
public final class RegisterStrongAuthState: RegisterStrongAuthBaseState, @unchecked Sendable {}

/// A code was sent to the contact being registered: submit it, or register another contact.
public final class RegisterStrongAuthVerificationRequiredState: RegisterStrongAuthBaseState, @unchecked Sendable {
    /// Submits the code the user typed.
    public func submitChallenge(challenge: String, delegate: any RegisterStrongAuthSubmitChallengeDelegate) {
        MainActorDelegate.run(delegate, { await self.submitResult(challenge) }) { delegate, result in
            switch result {
            case .success(let account):
                NativeAuthMissingCallback.reporting({ [box = MainActorDelegate(delegate: delegate), id = account.value.correlationId] in
                    box.delegate.onRegisterStrongAuthSubmitChallengeError(
                        error: RegisterStrongAuthSubmitChallengeError(.general, message: $0, correlationId: id), newState: nil)
                }) { delegate.onSignInCompleted(result: account.value) }
            case .failure(let failure):
                delegate.onRegisterStrongAuthSubmitChallengeError(error: failure.error, newState: failure.canRetry ? self : nil)
            }
        }
    }

    /// Submits the code the user typed; the method is registered and the user signed in. After a wrong code
    /// (``RegisterStrongAuthSubmitChallengeError/isInvalidChallenge``) this state takes another.
    public func submitChallenge(challenge: String) async throws(RegisterStrongAuthSubmitChallengeError) -> MSALNativeAuthUserAccountResult {
        try await submitResult(challenge).unwrap().value
    }

    private func submitResult(_ code: String) async -> Result<Carried<MSALNativeAuthUserAccountResult>, NativeAuthFailure<RegisterStrongAuthSubmitChallengeError>> {
        NativeSignInOutcomes.completed(await session.submitChallenge(code), application: application, session: session)
    }
}
