// A view controller written the way Microsoft's native-authentication documentation for iOS writes one (the
// "Add sign in and sign out in native iOS/macOS app" tutorial and its sample app): the application created with a
// tenant subdomain, sign-up and sign-in started with a username and the controller as delegate, MSAL's delegate
// protocols implemented in extensions with module-qualified type names (`MSAL.SignInStartError`), codes submitted and
// resent on the state handed to the callback, the sign-in after sign-up, a password reset, the cached account, an
// access token and sign-out. scripts/apple-surface.sh type-checks it against the package built with the transcribed
// Apple SDK surface, in Swift 5 mode as such apps are.
import UIKit
import MSAL

class NativeAuthViewController: UIViewController {
    var emailTextField: UITextField!
    var passwordTextField: UITextField!
    var resultTextView: UITextView!

    var nativeAuth: MSALNativeAuthPublicClientApplication!
    var accountResult: MSALNativeAuthUserAccountResult?
    var pendingCodeSubmit: ((String) -> Void)?

    override func viewDidLoad() {
        super.viewDidLoad()
        do {
            nativeAuth = try MSALNativeAuthPublicClientApplication(
                clientId: "Enter_the_Application_Id_Here",
                tenantSubdomain: "Enter_the_Tenant_Subdomain_Here",
                challengeTypes: [.OOB, .password]
            )
        } catch {
            show("Unable to initialize MSAL \(error)")
        }
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        accountResult = nativeAuth.getNativeAuthUserAccount()
        if let accountResult = accountResult, let id = accountResult.account.homeAccountId?.identifier {
            show("Account found in cache: \(id)")
            accountResult.getAccessToken(delegate: self)
        }
    }

    func show(_ text: String) { resultTextView.text = text }

    func signUpPressed() {
        guard let email = emailTextField.text else { return }
        nativeAuth.signUp(username: email, delegate: self)
    }

    func signInPressed() {
        guard let email = emailTextField.text, let password = passwordTextField.text else { return }
        let parameters = MSALNativeAuthSignInParameters(username: email)
        parameters.password = password
        parameters.scopes = ["User.Read"]
        nativeAuth.signIn(parameters: parameters, delegate: self)
    }

    func signInWithCodePressed() {
        guard let email = emailTextField.text else { return }
        nativeAuth.signIn(username: email, delegate: self)
    }

    func resetPasswordPressed() {
        guard let email = emailTextField.text else { return }
        nativeAuth.resetPassword(parameters: MSALNativeAuthResetPasswordParameters(username: email), delegate: self)
    }

    func signOutPressed() {
        accountResult?.signOut()
        accountResult = nil
        show("Signed out")
    }

    func codeTyped(_ code: String) {
        pendingCodeSubmit?(code)
    }
}

extension NativeAuthViewController: SignUpStartDelegate {
    func onSignUpStartError(error: MSAL.SignUpStartError) {
        if error.isUserAlreadyExists {
            show("Unable to sign up: User already exists")
        } else if error.isInvalidUsername || error.isInvalidPassword {
            show("Unable to sign up: check the username and password")
        } else if error.isBrowserRequired {
            show("Unable to sign up: Web UX required")
        } else {
            show("Unexpected error signing up: \(error.errorDescription ?? "No error description")")
        }
    }

    func onSignUpCodeRequired(newState: MSAL.SignUpCodeRequiredState, sentTo: String,
                              channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
        show("Email verification required: a \(codeLength)-character code went to \(sentTo)")
        pendingCodeSubmit = { [weak self] code in
            guard let self = self else { return }
            newState.submitCode(code: code, delegate: self)
        }
    }

    func onSignUpAttributesInvalid(attributeNames: [String]) {
        show("Invalid attributes: \(attributeNames)")
    }
}

extension NativeAuthViewController: SignUpVerifyCodeDelegate {
    func onSignUpVerifyCodeError(error: MSAL.VerifyCodeError, newState: MSAL.SignUpCodeRequiredState?) {
        if error.isInvalidCode, let newState = newState {
            show("Invalid code")
            newState.resendCode(delegate: self)
        } else {
            show("Unexpected error verifying code: \(error.errorDescription ?? "No error description")")
        }
    }

    func onSignUpPasswordRequired(newState: MSAL.SignUpPasswordRequiredState) {
        newState.submitPassword(password: passwordTextField.text ?? "", delegate: self)
    }

    func onSignUpAttributesRequired(attributes: [MSALNativeAuthRequiredAttribute], newState: MSAL.SignUpAttributesRequiredState) {
        let values = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, "value" as Any) })
        newState.submitAttributes(attributes: values, delegate: self)
    }

    func onSignUpCompleted(newState: MSAL.SignInAfterSignUpState) {
        show("Signed up successfully!")
        newState.signIn(delegate: self)
    }
}

extension NativeAuthViewController: SignUpResendCodeDelegate {
    func onSignUpResendCodeError(error: MSAL.ResendCodeError, newState: MSAL.SignUpCodeRequiredState?) {
        show("Unexpected error while requesting new code")
    }

    func onSignUpResendCodeCodeRequired(newState: MSAL.SignUpCodeRequiredState, sentTo _: String,
                                        channelTargetType _: MSAL.MSALNativeAuthChannelType, codeLength _: Int) {
        pendingCodeSubmit = { [weak self] code in
            guard let self = self else { return }
            newState.submitCode(code: code, delegate: self)
        }
    }
}

extension NativeAuthViewController: SignUpPasswordRequiredDelegate {
    func onSignUpPasswordRequiredError(error: MSAL.PasswordRequiredError, newState: MSAL.SignUpPasswordRequiredState?) {
        show(error.isInvalidPassword ? "Invalid password" : "Error: \(error.errorDescription ?? "")")
    }
}

extension NativeAuthViewController: SignUpAttributesRequiredDelegate {
    func onSignUpAttributesRequiredError(error: MSAL.AttributesRequiredError) {
        show("Error submitting attributes: \(error.errorDescription ?? "")")
    }

    func onSignUpAttributesInvalid(attributeNames: [String], newState: MSAL.SignUpAttributesRequiredState) {
        show("Invalid attributes: \(attributeNames)")
    }
}

extension NativeAuthViewController: SignInAfterSignUpDelegate {
    func onSignInAfterSignUpError(error: MSAL.SignInAfterSignUpError) {
        show("Error signing in after signing up.")
    }
}

extension NativeAuthViewController: SignInStartDelegate {
    func onSignInStartError(error: MSAL.SignInStartError) {
        if error.isUserNotFound || error.isInvalidCredentials || error.isInvalidUsername {
            show("Invalid username or password")
        } else if error.isBrowserRequired {
            show("Unable to sign in: Web UX required")
        } else {
            show("Error while signing in: \(error.errorDescription ?? "No error description")")
        }
    }

    func onSignInCodeRequired(newState: MSAL.SignInCodeRequiredState, sentTo: String,
                              channelTargetType: MSAL.MSALNativeAuthChannelType, codeLength: Int) {
        show("Email verification required")
        pendingCodeSubmit = { [weak self] code in
            guard let self = self else { return }
            newState.submitCode(code: code, delegate: self)
        }
    }

    func onSignInPasswordRequired(newState: MSAL.SignInPasswordRequiredState) {
        newState.submitPassword(password: passwordTextField.text ?? "", delegate: self)
    }

    func onSignInCompleted(result: MSAL.MSALNativeAuthUserAccountResult) {
        show("Signed in: \(result.account.username ?? "")")
        accountResult = result
        result.getAccessToken(delegate: self)
    }
}

extension NativeAuthViewController: SignInVerifyCodeDelegate {
    func onSignInVerifyCodeError(error: MSAL.VerifyCodeError, newState: MSAL.SignInCodeRequiredState?) {
        if error.isInvalidCode, let newState = newState {
            show("Invalid code")
            pendingCodeSubmit = { [weak self] code in
                guard let self = self else { return }
                newState.submitCode(code: code, delegate: self)
            }
        } else if error.isBrowserRequired {
            show("Unable to sign in: Web UX required")
        } else {
            show("Unexpected error verifying code: \(error.errorDescription ?? "No error description")")
        }
    }
}

extension NativeAuthViewController: SignInPasswordRequiredDelegate {
    func onSignInPasswordRequiredError(error: MSAL.PasswordRequiredError, newState: MSAL.SignInPasswordRequiredState?) {
        show(error.isInvalidPassword ? "Invalid password" : "Error: \(error.errorDescription ?? "")")
    }
}

extension NativeAuthViewController: ResetPasswordStartDelegate {
    func onResetPasswordStartError(error: MSAL.ResetPasswordStartError) {
        if error.isInvalidUsername || error.isUserNotFound {
            show("Invalid username")
        } else if error.isUserDoesNotHavePassword {
            show("User does not have a password")
        } else if error.isBrowserRequired {
            show("Unable to reset password: Web UX required")
        } else {
            show("Error while resetting password: \(error.errorDescription ?? "No error description")")
        }
    }

    func onResetPasswordCodeRequired(newState: MSAL.ResetPasswordCodeRequiredState, sentTo: String,
                                     channelTargetType: MSAL.MSALNativeAuthChannelType, codeLength: Int) {
        pendingCodeSubmit = { [weak self] code in
            guard let self = self else { return }
            newState.submitCode(code: code, delegate: self)
        }
    }
}

extension NativeAuthViewController: ResetPasswordVerifyCodeDelegate {
    func onResetPasswordVerifyCodeError(error: MSAL.VerifyCodeError, newState: MSAL.ResetPasswordCodeRequiredState?) {
        show(error.isInvalidCode ? "Invalid code" : "Error: \(error.errorDescription ?? "")")
    }

    func onPasswordRequired(newState: MSAL.ResetPasswordRequiredState) {
        newState.submitPassword(password: passwordTextField.text ?? "", delegate: self)
    }
}

extension NativeAuthViewController: ResetPasswordRequiredDelegate {
    func onResetPasswordRequiredError(error: MSAL.PasswordRequiredError, newState: MSAL.ResetPasswordRequiredState?) {
        show(error.isInvalidPassword ? "Invalid password" : "Error: \(error.errorDescription ?? "")")
    }

    func onResetPasswordCompleted(newState: MSAL.SignInAfterResetPasswordState) {
        show("Password reset completed")
        newState.signIn(delegate: self)
    }
}

extension NativeAuthViewController: SignInAfterResetPasswordDelegate {
    func onSignInAfterResetPasswordError(error: MSAL.SignInAfterResetPasswordError) {
        show("Error signing in after password reset.")
    }
}

extension NativeAuthViewController: CredentialsDelegate {
    func onAccessTokenRetrieveCompleted(result: MSALNativeAuthTokenResult) {
        show("Signed in. Access token expires on \(String(describing: result.expiresOn)), scopes \(result.scopes)")
    }

    func onAccessTokenRetrieveError(error: MSAL.RetrieveAccessTokenError) {
        show("Error retrieving access token: \(error.errorDescription ?? "No error description")")
    }
}
