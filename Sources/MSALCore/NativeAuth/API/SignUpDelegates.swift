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

/// The answers of ``SignUpCodeRequiredState/submitCode(code:delegate:)``.
public protocol SignUpVerifyCodeDelegate: AnyObject {
    @MainActor func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?)
    @MainActor func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState)
    @MainActor func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState)
    @MainActor func onSignUpCompleted(newState: SignInAfterSignUpState)
}

extension SignUpVerifyCodeDelegate {
    @MainActor public func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState) {
        onSignUpVerifyCodeError(error: VerifyCodeError(.general, message: NativeAuthDelegateMessages.missing("onSignUpAttributesRequired"),
                                                       correlationId: newState.correlationId), newState: nil)
    }
    @MainActor public func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) {
        onSignUpVerifyCodeError(error: VerifyCodeError(.general, message: NativeAuthDelegateMessages.missing("onSignUpPasswordRequired"),
                                                       correlationId: newState.correlationId), newState: nil)
    }
    @MainActor public func onSignUpCompleted(newState: SignInAfterSignUpState) {
        onSignUpVerifyCodeError(error: VerifyCodeError(.general, message: NativeAuthDelegateMessages.missing("onSignUpCompleted"),
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
public protocol SignUpPasswordRequiredDelegate: AnyObject {
    @MainActor func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?)
    @MainActor func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState)
    @MainActor func onSignUpCompleted(newState: SignInAfterSignUpState)
}

extension SignUpPasswordRequiredDelegate {
    @MainActor public func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState) {
        onSignUpPasswordRequiredError(error: PasswordRequiredError(.general, message: NativeAuthDelegateMessages.missing("onSignUpAttributesRequired"),
                                                                   correlationId: newState.correlationId), newState: nil)
    }
    @MainActor public func onSignUpCompleted(newState: SignInAfterSignUpState) {
        onSignUpPasswordRequiredError(error: PasswordRequiredError(.general, message: NativeAuthDelegateMessages.missing("onSignUpCompleted"),
                                                                   correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``SignUpAttributesRequiredState/submitAttributes(attributes:delegate:)``.
public protocol SignUpAttributesRequiredDelegate: AnyObject {
    @MainActor func onSignUpAttributesRequiredError(error: AttributesRequiredError)
    @MainActor func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState)
    @MainActor func onSignUpAttributesInvalid(attributeNames: [String], newState: SignUpAttributesRequiredState)
    @MainActor func onSignUpCompleted(newState: SignInAfterSignUpState)
}

extension SignUpAttributesRequiredDelegate {
    @MainActor public func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState) {
        onSignUpAttributesRequiredError(error: AttributesRequiredError(.general, message: NativeAuthDelegateMessages.missing("onSignUpAttributesRequired"),
                                                                       correlationId: newState.correlationId))
    }
    @MainActor public func onSignUpAttributesInvalid(attributeNames: [String], newState: SignUpAttributesRequiredState) {
        onSignUpAttributesRequiredError(error: AttributesRequiredError(.general, message: NativeAuthDelegateMessages.missing("onSignUpAttributesInvalid"),
                                                                       correlationId: newState.correlationId))
    }
    @MainActor public func onSignUpCompleted(newState: SignInAfterSignUpState) {
        onSignUpAttributesRequiredError(error: AttributesRequiredError(.general, message: NativeAuthDelegateMessages.missing("onSignUpCompleted"),
                                                                       correlationId: newState.correlationId))
    }
}

/// The answers of ``SignInAfterSignUpState/signIn(parameters:delegate:)``.
public protocol SignInAfterSignUpDelegate: SignInStrongAuthDelegate {
    @MainActor func onSignInAfterSignUpError(error: SignInAfterSignUpError)
    @MainActor func onSignInCompleted(result: MSALNativeAuthUserAccountResult)
}

extension SignInAfterSignUpDelegate {
    @MainActor public func onSignInCompleted(result: MSALNativeAuthUserAccountResult) {
        onSignInAfterSignUpError(error: SignInAfterSignUpError(.general, message: NativeAuthDelegateMessages.missing("onSignInCompleted"),
                                                               correlationId: result.correlationId))
    }
}
