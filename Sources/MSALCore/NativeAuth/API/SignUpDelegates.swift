import Foundation

// The delegates of native sign-up, as MSAL for iOS/macOS declares them: callbacks on the main actor, the error
// callback required, the others defaulting to a general error that names the method the app did not implement.

/// The answers of ``MSALNativeAuthPublicClientApplication/signUp(parameters:delegate:)``.
public protocol SignUpStartDelegate: AnyObject {
    @MainActor func onSignUpStartError(error: SignUpStartError)
    @MainActor func onSignUpCodeRequired(newState: SignUpCodeRequiredState, sentTo: String,
                                         channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
    /// The attributes given to `signUp` were rejected: start again with valid ones.
    @MainActor func onSignUpAttributesInvalid(attributeNames: [String])
}

extension SignUpStartDelegate {
    @MainActor public func onSignUpCodeRequired(newState: SignUpCodeRequiredState, sentTo: String,
                                                channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onSignUpStartError(error: SignUpStartError(.general, message: NativeAuthDelegateMessages.missing("onSignUpCodeRequired"),
                                                   correlationId: newState.correlationId))
    }
    @MainActor public func onSignUpAttributesInvalid(attributeNames: [String]) {
        onSignUpStartError(error: SignUpStartError(.general, message: NativeAuthDelegateMessages.missing("onSignUpAttributesInvalid"),
                                                   correlationId: UUID()))
    }
}

/// The two sign-up callbacks three delegates share (the code's, the password's and the attributes'): declared once,
/// with one default each, so that a class adopting several of them compiles without implementing them, as with MSAL
/// for iOS/macOS's optional methods. A default reports a general error through the error callback of the delegate
/// being answered.
public protocol SignUpProgressDelegate: AnyObject {
    /// The tenant's user flow needs these attributes: submit them on `newState`.
    @MainActor func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState)
    /// The account was created: sign the user in on `newState`.
    @MainActor func onSignUpCompleted(newState: SignInAfterSignUpState)
}

extension SignUpProgressDelegate {
    @MainActor public func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState) {
        NativeAuthMissingCallback.report("onSignUpAttributesRequired")
    }
    @MainActor public func onSignUpCompleted(newState: SignInAfterSignUpState) {
        NativeAuthMissingCallback.report("onSignUpCompleted")
    }
}

/// The answers of ``SignUpCodeRequiredState/submitCode(code:delegate:)``.
public protocol SignUpVerifyCodeDelegate: SignUpProgressDelegate {
    @MainActor func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?)
    @MainActor func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState)
}

extension SignUpVerifyCodeDelegate {
    @MainActor public func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) {
        onSignUpVerifyCodeError(error: VerifyCodeError(.general, message: NativeAuthDelegateMessages.missing("onSignUpPasswordRequired"),
                                                       correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``SignUpCodeRequiredState/resendCode(delegate:)``.
public protocol SignUpResendCodeDelegate: AnyObject {
    @MainActor func onSignUpResendCodeError(error: ResendCodeError, newState: SignUpCodeRequiredState?)
    @MainActor func onSignUpResendCodeCodeRequired(newState: SignUpCodeRequiredState, sentTo: String,
                                                   channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
}

extension SignUpResendCodeDelegate {
    @MainActor public func onSignUpResendCodeCodeRequired(newState: SignUpCodeRequiredState, sentTo: String,
                                                          channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onSignUpResendCodeError(error: ResendCodeError(.general, message: NativeAuthDelegateMessages.missing("onSignUpResendCodeCodeRequired"),
                                                       correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``SignUpPasswordRequiredState/submitPassword(password:delegate:)``.
public protocol SignUpPasswordRequiredDelegate: SignUpProgressDelegate {
    @MainActor func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?)
}


/// The answers of ``SignUpAttributesRequiredState/submitAttributes(attributes:delegate:)``.
public protocol SignUpAttributesRequiredDelegate: SignUpProgressDelegate {
    @MainActor func onSignUpAttributesRequiredError(error: AttributesRequiredError)
    @MainActor func onSignUpAttributesInvalid(attributeNames: [String], newState: SignUpAttributesRequiredState)
}

extension SignUpAttributesRequiredDelegate {
    @MainActor public func onSignUpAttributesInvalid(attributeNames: [String], newState: SignUpAttributesRequiredState) {
        onSignUpAttributesRequiredError(error: AttributesRequiredError(.general, message: NativeAuthDelegateMessages.missing("onSignUpAttributesInvalid"),
                                                                       correlationId: newState.correlationId))
    }
}

/// The answers of ``SignInAfterSignUpState/signIn(parameters:delegate:)``.
public protocol SignInAfterSignUpDelegate: SignInStrongAuthDelegate {
    @MainActor func onSignInAfterSignUpError(error: SignInAfterSignUpError)
}

