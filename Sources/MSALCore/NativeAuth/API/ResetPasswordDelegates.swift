import Foundation

// The delegates of self-service password reset, as MSAL for iOS/macOS declares them: callbacks on the main actor,
// the error callback required, the others defaulting to a general error naming the missing method.

/// The answers of ``MSALNativeAuthPublicClientApplication/resetPassword(parameters:delegate:)``.
public protocol ResetPasswordStartDelegate: AnyObject {
    @MainActor func onResetPasswordStartError(error: ResetPasswordStartError)
    @MainActor func onResetPasswordCodeRequired(newState: ResetPasswordCodeRequiredState, sentTo: String,
                                                channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
}

extension ResetPasswordStartDelegate {
    @MainActor public func onResetPasswordCodeRequired(newState: ResetPasswordCodeRequiredState, sentTo: String,
                                                       channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onResetPasswordStartError(error: ResetPasswordStartError(.general, message: NativeAuthDelegateMessages.missing("onResetPasswordCodeRequired"),
                                                                 correlationId: newState.correlationId))
    }
}

/// The answers of ``ResetPasswordCodeRequiredState/submitCode(code:delegate:)``.
public protocol ResetPasswordVerifyCodeDelegate: AnyObject {
    @MainActor func onResetPasswordVerifyCodeError(error: VerifyCodeError, newState: ResetPasswordCodeRequiredState?)
    @MainActor func onPasswordRequired(newState: ResetPasswordRequiredState)
}

extension ResetPasswordVerifyCodeDelegate {
    @MainActor public func onPasswordRequired(newState: ResetPasswordRequiredState) {
        onResetPasswordVerifyCodeError(error: VerifyCodeError(.general, message: NativeAuthDelegateMessages.missing("onPasswordRequired"),
                                                              correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``ResetPasswordCodeRequiredState/resendCode(delegate:)``.
public protocol ResetPasswordResendCodeDelegate: AnyObject {
    @MainActor func onResetPasswordResendCodeError(error: ResendCodeError, newState: ResetPasswordCodeRequiredState?)
    @MainActor func onResetPasswordResendCodeRequired(newState: ResetPasswordCodeRequiredState, sentTo: String,
                                                      channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
}

extension ResetPasswordResendCodeDelegate {
    @MainActor public func onResetPasswordResendCodeRequired(newState: ResetPasswordCodeRequiredState, sentTo: String,
                                                             channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onResetPasswordResendCodeError(error: ResendCodeError(.general, message: NativeAuthDelegateMessages.missing("onResetPasswordResendCodeRequired"),
                                                              correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``ResetPasswordRequiredState/submitPassword(password:delegate:)``.
public protocol ResetPasswordRequiredDelegate: AnyObject {
    @MainActor func onResetPasswordRequiredError(error: PasswordRequiredError, newState: ResetPasswordRequiredState?)
    @MainActor func onResetPasswordCompleted(newState: SignInAfterResetPasswordState)
}

extension ResetPasswordRequiredDelegate {
    @MainActor public func onResetPasswordCompleted(newState: SignInAfterResetPasswordState) {
        onResetPasswordRequiredError(error: PasswordRequiredError(.general, message: NativeAuthDelegateMessages.missing("onResetPasswordCompleted"),
                                                                  correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``SignInAfterResetPasswordState/signIn(parameters:delegate:)``.
public protocol SignInAfterResetPasswordDelegate: SignInStrongAuthDelegate {
    @MainActor func onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError)
}

