import Foundation

// The delegates of native sign-in, as MSAL for iOS/macOS declares them. Every callback is called on the main actor.
// The error callback is required; MSAL for iOS/macOS's optional callbacks have default implementations here that
// report a general error through the error callback, naming the method the app did not implement (what MSAL for
// iOS/macOS does when an optional method it needs is missing).

/// The answers of ``MSALNativeAuthPublicClientApplication/signIn(parameters:delegate:)``.
public protocol SignInStartDelegate: SignInStrongAuthDelegate {
    @MainActor func onSignInStartError(error: SignInStartError)
    /// A one-time passcode was sent to `sentTo` (masked); submit it on `newState`.
    @MainActor func onSignInCodeRequired(newState: SignInCodeRequiredState, sentTo: String,
                                         channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
    /// The user signs in with a password; submit it on `newState`.
    @MainActor func onSignInPasswordRequired(newState: SignInPasswordRequiredState)
}

extension SignInStartDelegate {
    @MainActor public func onSignInCodeRequired(newState: SignInCodeRequiredState, sentTo: String,
                                                channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onSignInStartError(error: SignInStartError(.general, message: NativeAuthDelegateMessages.missing("onSignInCodeRequired"),
                                                   correlationId: newState.correlationId))
    }
    @MainActor public func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        onSignInStartError(error: SignInStartError(.general, message: NativeAuthDelegateMessages.missing("onSignInPasswordRequired"),
                                                   correlationId: newState.correlationId))
    }
}

/// The answers of ``SignInCodeRequiredState/submitCode(code:delegate:)``.
public protocol SignInVerifyCodeDelegate: SignInStrongAuthDelegate {
    /// `newState`: submit another code on it (a wrong code); nil when the sign-in is over.
    @MainActor func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?)
}


/// The answers of ``SignInCodeRequiredState/resendCode(delegate:)``.
public protocol SignInResendCodeDelegate: AnyObject {
    @MainActor func onSignInResendCodeError(error: ResendCodeError, newState: SignInCodeRequiredState?)
    @MainActor func onSignInResendCodeCodeRequired(newState: SignInCodeRequiredState, sentTo: String,
                                                   channelTargetType: MSALNativeAuthChannelType, codeLength: Int)
}

extension SignInResendCodeDelegate {
    @MainActor public func onSignInResendCodeCodeRequired(newState: SignInCodeRequiredState, sentTo: String,
                                                          channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        onSignInResendCodeError(error: ResendCodeError(.general, message: NativeAuthDelegateMessages.missing("onSignInResendCodeCodeRequired"),
                                                       correlationId: newState.correlationId), newState: nil)
    }
}

/// The answers of ``SignInPasswordRequiredState/submitPassword(password:delegate:)``.
public protocol SignInPasswordRequiredDelegate: SignInStrongAuthDelegate {
    /// `newState`: submit another password on it (a wrong password); nil when the sign-in is over.
    @MainActor func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?)
}


/// The answers of ``MSALNativeAuthUserAccountResult/getAccessToken(parameters:delegate:)``.
public protocol CredentialsDelegate: AnyObject {
    @MainActor func onAccessTokenRetrieveError(error: RetrieveAccessTokenError)
    @MainActor func onAccessTokenRetrieveCompleted(result: MSALNativeAuthTokenResult)
}

extension CredentialsDelegate {
    @MainActor public func onAccessTokenRetrieveCompleted(result: MSALNativeAuthTokenResult) {
        onAccessTokenRetrieveError(error: RetrieveAccessTokenError(.general, message: NativeAuthDelegateMessages.missing("onAccessTokenRetrieveCompleted"),
                                                                   correlationId: result.correlationId))
    }
}

enum NativeAuthDelegateMessages {
    static func missing(_ method: String) -> String {
        "The delegate does not implement \(method), which this answer needs."
    }
}

/// Hands a delegate to the main actor, where alone its callbacks are called (as MSAL for iOS/macOS does).
struct MainActorDelegate<Delegate>: @unchecked Sendable {
    let delegate: Delegate

    /// Runs `work` (off the main actor), then `deliver` on the main actor with the delegate and the outcome.
    static func run<Outcome: Sendable>(_ delegate: Delegate, _ work: @escaping @Sendable () async -> Outcome,
                                       deliver: @escaping @MainActor @Sendable (Delegate, Outcome) -> Void) {
        let box = MainActorDelegate(delegate: delegate)
        Task {
            let outcome = await work()
            await MainActor.run { deliver(box.delegate, outcome) }
        }
    }
}
