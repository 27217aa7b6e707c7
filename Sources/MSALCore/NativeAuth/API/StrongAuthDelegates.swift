import Foundation

// The delegates of a sign-in's second factor and of registering a strong method, as MSAL for iOS/macOS declares
// them. Callbacks run on the main actor; the optional ones default to the error callback, naming the method.

/// The callbacks a sign-in can end with once the user's first factor (a code, a password, a finished sign-up or
/// password reset) passed and the tenant wants more. Inherited by ``SignInStartDelegate``,
/// ``SignInVerifyCodeDelegate``, ``SignInPasswordRequiredDelegate``, ``SignInAfterSignUpDelegate`` and
/// ``SignInAfterResetPasswordDelegate``; an app that does not implement them (it did not declare the
/// capabilities) hears a general error through the delegate's error callback instead, naming the method.
public protocol SignInStrongAuthDelegate: AnyObject {
    /// A second factor is needed: pick one of `authMethods` and ask for a code on `newState`.
    @MainActor func onSignInAwaitingMFA(authMethods: [MSALAuthMethod], newState: AwaitingMFAState)
    /// The user must register a strong method first, on `newState`.
    @MainActor func onSignInStrongAuthMethodRegistration(authMethods: [MSALAuthMethod], newState: RegisterStrongAuthState)
}

extension SignInStrongAuthDelegate {
    @MainActor public func onSignInAwaitingMFA(authMethods: [MSALAuthMethod], newState: AwaitingMFAState) {
        NativeAuthMissingCallback.report("onSignInAwaitingMFA")
    }
    @MainActor public func onSignInStrongAuthMethodRegistration(authMethods: [MSALAuthMethod], newState: RegisterStrongAuthState) {
        NativeAuthMissingCallback.report("onSignInStrongAuthMethodRegistration")
    }
}

/// Where a default callback of ``SignInStrongAuthDelegate`` reports that the app did not implement it: the
/// delivering step sets the report (the error callback of the delegate it serves) around the call.
struct NativeAuthMissingCallback: Sendable {
    let handler: @MainActor @Sendable (String) -> Void

    @TaskLocal static var current: NativeAuthMissingCallback?

    @MainActor static func report(_ method: String) { current?.handler(NativeAuthDelegateMessages.missing(method)) }

    /// Runs `body` (a delegate call) with `handler` receiving the message of a callback the app did not implement.
    @MainActor static func reporting(_ handler: @escaping @MainActor @Sendable (String) -> Void, _ body: () -> Void) {
        $current.withValue(NativeAuthMissingCallback(handler: handler)) { body() }
    }
}

/// The answers of ``AwaitingMFAState/requestChallenge(authMethod:delegate:)`` and
/// ``MFARequiredState/requestChallenge(authMethod:delegate:)``.
public protocol MFARequestChallengeDelegate: AnyObject {
    /// `newState`: ask again (another method) or submit on it; nil when the sign-in is over.
    @MainActor func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?)
    /// A code was sent to `sentTo` (masked): submit it on `newState`.
    @MainActor func onMFARequestChallengeVerificationRequired(newState: MFARequiredState, sentTo: String,
                                                              channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
    /// The service wants the user to pick a method first (declared as in MSAL for iOS/macOS; not sent today).
    @MainActor func onMFARequestChallengeSelectionRequired(authMethods: [MSALAuthMethod], newState: MFARequiredState)
}

extension MFARequestChallengeDelegate {
    @MainActor public func onMFARequestChallengeVerificationRequired(newState: MFARequiredState, sentTo: String,
                                                                     channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onMFARequestChallengeError(error: MFARequestChallengeError(.general, message: NativeAuthDelegateMessages.missing("onMFARequestChallengeVerificationRequired"),
                                                                   correlationId: newState.correlationId), newState: nil)
    }
    @MainActor public func onMFARequestChallengeSelectionRequired(authMethods: [MSALAuthMethod], newState: MFARequiredState) {
        onMFARequestChallengeError(error: MFARequestChallengeError(.general, message: NativeAuthDelegateMessages.missing("onMFARequestChallengeSelectionRequired"),
                                                                   correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``MFARequiredState/submitChallenge(challenge:delegate:)``.
public protocol MFASubmitChallengeDelegate: AnyObject {
    /// `newState`: submit another code on it (a wrong code); nil when the sign-in is over.
    @MainActor func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?)
    @MainActor func onSignInCompleted(result: MSALNativeAuthUserAccountResult)
}

extension MFASubmitChallengeDelegate {
    @MainActor public func onSignInCompleted(result: MSALNativeAuthUserAccountResult) {
        onMFASubmitChallengeError(error: MFASubmitChallengeError(.general, message: NativeAuthDelegateMessages.missing("onSignInCompleted"),
                                                                 correlationId: result.correlationId), newState: nil)
    }
}

/// The answers of ``RegisterStrongAuthBaseState/challengeAuthMethod(parameters:delegate:)``.
public protocol RegisterStrongAuthChallengeDelegate: AnyObject {
    /// `newState`: give another contact on it (an invalid or blocked one); nil when the sign-in is over.
    @MainActor func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?)
    /// A code was sent to the contact: submit it on the result's state.
    @MainActor func onRegisterStrongAuthVerificationRequired(result: MSALNativeAuthRegisterStrongAuthVerificationRequiredResult)
    /// The contact was already verified: the method is registered and the user signed in.
    @MainActor func onSignInCompleted(result: MSALNativeAuthUserAccountResult)
}

extension RegisterStrongAuthChallengeDelegate {
    @MainActor public func onRegisterStrongAuthVerificationRequired(result: MSALNativeAuthRegisterStrongAuthVerificationRequiredResult) {
        onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError(.general, message: NativeAuthDelegateMessages.missing("onRegisterStrongAuthVerificationRequired"),
                                                                                   correlationId: result.newState.correlationId), newState: nil)
    }
    @MainActor public func onSignInCompleted(result: MSALNativeAuthUserAccountResult) {
        onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError(.general, message: NativeAuthDelegateMessages.missing("onSignInCompleted"),
                                                                                   correlationId: result.correlationId), newState: nil)
    }
}

/// The answers of ``RegisterStrongAuthVerificationRequiredState/submitChallenge(challenge:delegate:)``.
public protocol RegisterStrongAuthSubmitChallengeDelegate: AnyObject {
    /// `newState`: submit another code on it (a wrong code); nil when the sign-in is over.
    @MainActor func onRegisterStrongAuthSubmitChallengeError(error: RegisterStrongAuthSubmitChallengeError,
                                                             newState: RegisterStrongAuthVerificationRequiredState?)
    @MainActor func onSignInCompleted(result: MSALNativeAuthUserAccountResult)
}

extension RegisterStrongAuthSubmitChallengeDelegate {
    @MainActor public func onSignInCompleted(result: MSALNativeAuthUserAccountResult) {
        onRegisterStrongAuthSubmitChallengeError(error: RegisterStrongAuthSubmitChallengeError(.general, message: NativeAuthDelegateMessages.missing("onSignInCompleted"),
                                                                                               correlationId: result.correlationId), newState: nil)
    }
}
