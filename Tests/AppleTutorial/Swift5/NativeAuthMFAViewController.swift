// A view controller written the way Microsoft's native-authentication documentation for iOS writes the multifactor
// and strong-method registration steps ("Add multifactor authentication" and "Register a strong authentication
// method" in the native iOS/macOS tutorials): the configuration with its capabilities, the optional sign-in callbacks
// `onSignInAwaitingMFA` and `onSignInStrongAuthMethodRegistration`, a code requested on the method the user picked,
// the challenge submitted, a verification contact registered. The controller conforms to several sign-in delegates
// and implements each optional callback once. scripts/apple-surface.sh type-checks it in Swift 5 mode.
import UIKit
import MSAL

class NativeAuthMFAViewController: UIViewController {
    var emailTextField: UITextField!
    var passwordTextField: UITextField!
    var codeTextField: UITextField!
    var resultTextView: UITextView!

    var nativeAuth: MSALNativeAuthPublicClientApplication!
    var mfaRequiredState: MFARequiredState?
    var registerVerificationState: RegisterStrongAuthVerificationRequiredState?

    override func viewDidLoad() {
        super.viewDidLoad()
        do {
            let authority = try MSALCIAMAuthority(url: URL(string: "https://Enter_the_Tenant_Subdomain_Here.ciamlogin.com")!)
            let configuration = MSALNativeAuthPublicClientApplicationConfig(clientId: "Enter_the_Application_Id_Here",
                                                                            authority: authority,
                                                                            challengeTypes: [.OOB, .password])
            configuration.capabilities = [.mfaRequired, .registrationRequired]
            nativeAuth = try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: configuration)
        } catch {
            resultTextView.text = "Unable to initialize MSAL \(error)"
        }
    }

    @IBAction func signInPressed(_: Any) {
        guard let email = emailTextField.text, let password = passwordTextField.text else { return }
        let parameters = MSALNativeAuthSignInParameters(username: email)
        parameters.password = password
        nativeAuth.signIn(parameters: parameters, delegate: self)
    }

    @IBAction func submitCodePressed(_: Any) {
        guard let code = codeTextField.text else { return }
        if let state = mfaRequiredState {
            state.submitChallenge(challenge: code, delegate: self)
        } else if let state = registerVerificationState {
            state.submitChallenge(challenge: code, delegate: self)
        }
    }
}

extension NativeAuthMFAViewController: SignInStartDelegate, SignInPasswordRequiredDelegate {
    func onSignInStartError(error: MSAL.SignInStartError) {
        resultTextView.text = "Error signing in: \(error.errorDescription ?? "no description")"
    }

    func onSignInPasswordRequiredError(error: MSAL.PasswordRequiredError, newState: MSAL.SignInPasswordRequiredState?) {
        resultTextView.text = "Error signing in: \(error.errorDescription ?? "no description")"
    }

    func onSignInAwaitingMFA(authMethods: [MSALAuthMethod], newState: AwaitingMFAState) {
        resultTextView.text = "Awaiting MFA: \(authMethods.map { $0.loginHint ?? $0.id })"
        guard let method = authMethods.first else { return }
        newState.requestChallenge(authMethod: method, delegate: self)
    }

    func onSignInStrongAuthMethodRegistration(authMethods: [MSALAuthMethod], newState: RegisterStrongAuthState) {
        guard let method = authMethods.first, let email = emailTextField.text else { return }
        let parameters = MSALNativeAuthChallengeAuthMethodParameters(authMethod: method, verificationContact: email)
        newState.challengeAuthMethod(parameters: parameters, delegate: self)
    }

    func onSignInCompleted(result: MSAL.MSALNativeAuthUserAccountResult) {
        resultTextView.text = "Signed in: \(result.account.username ?? "")"
    }
}

extension NativeAuthMFAViewController: MFARequestChallengeDelegate {
    func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?) {
        if error.isAuthMethodBlocked {
            resultTextView.text = "This method is blocked: choose another"
        }
        mfaRequiredState = newState
    }

    func onMFARequestChallengeVerificationRequired(newState: MFARequiredState, sentTo: String,
                                                   channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        resultTextView.text = "A code was sent to \(sentTo) (\(channelTargetType.isSMSType ? "SMS" : "email"))"
        mfaRequiredState = newState
    }

    func onMFARequestChallengeSelectionRequired(authMethods: [MSALAuthMethod], newState: MFARequiredState) {
        guard let method = authMethods.first else { return }
        newState.requestChallenge(authMethod: method, delegate: self)
    }
}

extension NativeAuthMFAViewController: MFASubmitChallengeDelegate {
    func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) {
        if error.isInvalidChallenge {
            resultTextView.text = "Invalid code"
        }
        mfaRequiredState = newState
    }
}

extension NativeAuthMFAViewController: RegisterStrongAuthChallengeDelegate {
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?) {
        if error.isInvalidInput || error.isVerificationContactBlocked {
            resultTextView.text = "Enter another email address"
        }
    }

    func onRegisterStrongAuthVerificationRequired(result: MSALNativeAuthRegisterStrongAuthVerificationRequiredResult) {
        resultTextView.text = "A code was sent to \(result.sentTo)"
        registerVerificationState = result.newState
    }
}

extension NativeAuthMFAViewController: RegisterStrongAuthSubmitChallengeDelegate {
    func onRegisterStrongAuthSubmitChallengeError(error: RegisterStrongAuthSubmitChallengeError,
                                                  newState: RegisterStrongAuthVerificationRequiredState?) {
        if error.isInvalidChallenge {
            resultTextView.text = "Invalid code"
        }
        registerVerificationState = newState
    }
}
