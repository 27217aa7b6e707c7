// Code written the way Microsoft's native-authentication samples for MSAL for iOS/macOS write it (UIKit lines taken
// out), compiled in Swift 5 language mode against this module: sign-up attributes built as `[String: Any]`, one class
// adopting several delegates that share optional callbacks and implementing only what its screen needs, an authority
// typed `MSALAuthority`.
import Foundation
import MSAL

/// A sign-up screen with custom attributes (the sample's CustomAttributesViewController): it adopts the code, password
/// and attributes delegates, and implements neither `onSignUpCompleted` nor `onSignUpAttributesRequired` in all of them.
final class CustomAttributesSignUp: SignUpStartDelegate, SignUpVerifyCodeDelegate, SignUpPasswordRequiredDelegate,
    SignUpAttributesRequiredDelegate, SignInAfterSignUpDelegate {
    var nativeAuth: MSALNativeAuthPublicClientApplication!
    var log: [String] = []

    func signUp(email: String, country: String, city: String) {
        var attributes: [String: Any] = [:]
        attributes["country"] = country
        attributes["city"] = city
        attributes["age"] = 30
        let parameters = MSALNativeAuthSignUpParameters(username: email)
        parameters.attributes = attributes
        nativeAuth.signUp(parameters: parameters, delegate: self)
    }

    func onSignUpStartError(error: SignUpStartError) { log.append("start: \(error.errorDescription ?? "")") }
    func onSignUpCodeRequired(newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: MSALNativeAuthChannelType,
                              codeLength: Int) {
        newState.submitCode(code: "00000000", delegate: self)
    }
    func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?) { log.append("code: \(error)") }
    func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?) { log.append("password") }
    func onSignUpAttributesRequiredError(error: AttributesRequiredError) { log.append("attributes") }
    func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: SignUpAttributesRequiredState) {
        let values: [String: Any] = ["country": "Denmark"]
        newState.submitAttributes(attributes: values, delegate: self)
    }
    func onSignInAfterSignUpError(error: SignInAfterSignUpError) { log.append("after: \(error)") }
}

/// A sign-in screen (the sample's EmailAndPasswordViewController with multifactor): one class for the start, the code,
/// the password, the second factor; `onSignInCompleted` implemented once.
final class SignInScreen: SignInStartDelegate, SignInVerifyCodeDelegate, SignInPasswordRequiredDelegate,
    MFASubmitChallengeDelegate, RegisterStrongAuthSubmitChallengeDelegate {
    var log: [String] = []

    func onSignInStartError(error: SignInStartError) { log.append("start") }
    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) { log.append("code") }
    func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) { log.append("password") }
    func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) { log.append("mfa") }
    func onRegisterStrongAuthSubmitChallengeError(error: RegisterStrongAuthSubmitChallengeError,
                                                  newState: RegisterStrongAuthVerificationRequiredState?) { log.append("jit") }
    func onSignInCompleted(result: MSALNativeAuthUserAccountResult) { log.append("signed in") }
}

/// A configuration built from an authority typed as the base class, as the samples' configuration code does.
enum NativeAuthSampleConfiguration {
    static func make(clientId: String, tenant: String) throws -> MSALNativeAuthPublicClientApplicationConfig {
        let authority: MSALAuthority = try MSALAuthority(url: URL(string: "https://\(tenant).ciamlogin.com")!)
        return MSALNativeAuthPublicClientApplicationConfig(clientId: clientId, authority: authority,
                                                            challengeTypes: [.OOB, .password])
    }
}
