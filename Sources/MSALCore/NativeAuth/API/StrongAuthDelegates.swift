import Foundation

// The delegates of a sign-in's second factor and of registering a strong method, as MSAL for iOS/macOS declares
// them. Callbacks run on the main actor; the optional ones default to the error callback, naming the method.

/// The callbacks a sign-in can end with once the user's first factor (a code, a password, a finished sign-up or
/// password reset) passed and the tenant wants more. Inherited by ``SignInStartDelegate``,
/// ``SignInVerifyCodeDelegate``, ``SignInPasswordRequiredDelegate``, ``SignInAfterSignUpDelegate`` and
/// ``SignInAfterResetPasswordDelegate``; an app that does not implement them (it did not declare the
/// capabilities) hears a general error through the delegate's error callback instead, naming the method.
public protocol SignInStrongAuthDelegate: SignInCompletedDelegate {
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

/// `onSignInCompleted(result:)`, which eight delegates share (the five sign-in delegates, the second factor's and the
/// registration's two): declared once, with one default, so that a class adopting several of them compiles without
/// implementing it, as with MSAL for iOS/macOS's optional methods (a default in each protocol would be ambiguous).
/// The default reports a general error through the error callback of the delegate being answered.
public protocol SignInCompletedDelegate: AnyObject {
    /// The user is signed in; the tokens are in the app's cache.
    @MainActor func onSignInCompleted(result: MSALNativeAuthUserAccountResult)
}

extension SignInCompletedDelegate {
    @MainActor public func onSignInCompleted(result: MSALNativeAuthUserAccountResult) {
        NativeAuthMissingCallback.report("onSignInCompleted")
    }
}

/// Where a default callback of ``SignInStrongAuthDelegate`` or ``SignInCompletedDelegate`` reports that the app did not implement it: the
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
public protocol MFASubmitChallengeDelegate: SignInCompletedDelegate {
    /// `newState`: submit another code on it (a wrong code); nil when the sign-in is over.
    @MainActor func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?)
}


/// The answers of ``RegisterStrongAuthBaseState/challengeAuthMethod(parameters:delegate:)``.
public protocol RegisterStrongAuthChallengeDelegate: SignInCompletedDelegate {
    /// `newState`: give another contact on it (an invalid or blocked one); nil when the sign-in is over.
    @MainActor func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?)
    /// A code was sent to the contact: submit it on the result's state.
    @MainActor func onRegisterStrongAuthVerificationRequired(result: MSALNativeAuthRegisterStrongAuthVerificationRequiredResult)
}

extension RegisterStrongAuthChallengeDelegate {
    @MainActor public func onRegisterStrongAuthVerificationRequired(result: MSALNativeAuthRegisterStrongAuthVerificationRequiredResult) {
        onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError(.general, message: NativeAuthDelegateMessages.missing("onRegisterStrongAuthVerificationRequired"),
                                                                                   correlationId: result.newState.correlationId), newState: nil)
    }
}

/// The answers of ``RegisterStrongAuthVerificationRequiredState/submitChallenge(challenge:delegate:)``.
public protocol RegisterStrongAuthSubmitChallengeDelegate: SignInCompletedDelegate {
    /// `newState`: submit another code on it (a wrong code); nil when the sign-in is over.
    @MainActor func onRegisterStrongAuthSubmitChallengeError(error: RegisterStrongAuthSubmitChallengeError,
                                                             newState: RegisterStrongAuthVerificationRequiredState?)
}

