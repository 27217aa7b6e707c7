// A view controller in Swift 6 language mode (strict concurrency, warnings as errors) that uses MSAL the way the
// seeds do: both the completion-block API and its async form, from main-actor code. scripts/apple-surface.sh
// type-checks it against the package built with the transcribed Apple SDK surface.
import MSAL
import UIKit

final class SignInViewController: UIViewController {
    private let statusLabel = UILabel()
    private var applicationContext: MSALPublicClientApplication?
    private var webViewParameters: MSALWebviewParameters?
    private var currentAccount: MSALAccount?

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(statusLabel)
        do {
            let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
            let configuration = MSALPublicClientApplicationConfig(clientId: "Your_Application_Id_Here", redirectUri: nil,
                                                                  authority: authority)
            applicationContext = try MSALPublicClientApplication(configuration: configuration)
            let parameters = MSALWebviewParameters(authPresentationViewController: self)
            parameters.prefersEphemeralWebBrowserSession = true
            webViewParameters = parameters
        } catch {
            statusLabel.text = "Unable to create the application: \(error)"
        }
    }

    /// The completion-block form: the block is written here, so it is isolated to the main actor and updates the view
    /// directly; MSAL calls it on the main queue.
    func signInWithCompletion() {
        guard let applicationContext, let webViewParameters else { return }
        let parameters = MSALInteractiveTokenParameters(scopes: ["user.read"], webviewParameters: webViewParameters)
        parameters.promptType = .selectAccount
        applicationContext.acquireToken(with: parameters) { result, error in
            if let result {
                self.currentAccount = result.account
                self.statusLabel.text = "Signed in as \(result.account.username ?? "")"
            } else {
                self.statusLabel.text = "Failed: \(String(describing: error))"
            }
        }
    }

    /// The current account, with MSAL's completion block, as the tutorial reads it.
    func loadCurrentAccount() {
        guard let applicationContext else { return }
        applicationContext.getCurrentAccount(with: nil) { account, _, error in
            self.currentAccount = account
            self.statusLabel.text = account?.username ?? error.map { "No account: \($0)" } ?? "Signed out"
        }
    }

    /// The async form, from main-actor code.
    func signIn() async {
        guard let applicationContext, let webViewParameters else { return }
        let parameters = MSALInteractiveTokenParameters(scopes: ["user.read"], webviewParameters: webViewParameters)
        do {
            let result = try await applicationContext.acquireToken(with: parameters)
            currentAccount = result.account
            statusLabel.text = "Signed in as \(result.account.username ?? "")"
        } catch let error as MSALErrorInfo where error.code == .userCanceled {
            statusLabel.text = "Sign-in canceled"
        } catch {
            statusLabel.text = "Sign-in failed: \(error)"
        }
    }

    func refresh() async {
        guard let applicationContext, let currentAccount else { return }
        do {
            let result = try await applicationContext.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: ["user.read"], account: currentAccount))
            statusLabel.text = "Token until \(result.expiresOn.map(String.init(describing:)) ?? "?")"
        } catch let error as MSALErrorInfo where error.code == .interactionRequired {
            await signIn()
        } catch {
            statusLabel.text = "Refresh failed: \(error)"
        }
    }

    func signOut() async {
        guard let applicationContext, let currentAccount, let webViewParameters else { return }
        let parameters = MSALSignoutParameters(webviewParameters: webViewParameters)
        parameters.signoutFromBrowser = true
        do {
            _ = try await applicationContext.signout(with: currentAccount, signoutParameters: parameters)
            self.currentAccount = nil
            statusLabel.text = "Signed out"
        } catch {
            statusLabel.text = "Sign-out failed: \(error)"
        }
    }
}
