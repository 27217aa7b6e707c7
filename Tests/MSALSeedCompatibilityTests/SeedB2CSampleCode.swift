// The Azure AD B2C sample and the ADAL-to-MSAL migration guide snippets, UIKit lines taken out; compiled in
// Swift 5 language mode against this module.
import Foundation
import MSAL

/// The B2C sample's MSAL code (seed 001), UIKit lines taken out.
final class B2CViewController {
    let kTenantName = "fabrikamb2c.onmicrosoft.com"
    let kAuthorityHostName = "fabrikamb2c.b2clogin.com"
    let kClientID = "90c0fe63-bcf2-44d5-8fb7-b8bbc0b29dc6"
    let kRedirectUri = "msauth.com.microsoft.identity.client.sample.MSALiOS://auth"
    let kSignupOrSigninPolicy = "b2c_1_susi"
    let kEditProfilePolicy = "b2c_1_edit_profile"
    let kGraphURI = "https://fabrikamb2chello.azurewebsites.net/hello"
    let kScopes: [String] = ["https://fabrikamb2c.onmicrosoft.com/helloapi/demo.read"]
    let kEndpoint = "https://%@/tfp/%@/%@"

    var applicationContext: MSALPublicClientApplication!
    var webViewParamaters: MSALWebviewParameters?
    var accessToken: String?
    var log: [String] = []

    func updateLoggingText(text: String) { log.append(text) }

    func setUp() {
        do {

            let siginPolicyAuthority = try self.getAuthority(forPolicy: self.kSignupOrSigninPolicy)
            let editProfileAuthority = try self.getAuthority(forPolicy: self.kEditProfilePolicy)

            let pcaConfig = MSALPublicClientApplicationConfig(clientId: kClientID, redirectUri: kRedirectUri, authority: siginPolicyAuthority)
            pcaConfig.knownAuthorities = [siginPolicyAuthority, editProfileAuthority]

            self.applicationContext = try MSALPublicClientApplication(configuration: pcaConfig)
            self.initWebViewParams()

            } catch {
                self.updateLoggingText(text: "Unable to create application \(error)")
            }
    }

    func initWebViewParams() {
        self.webViewParamaters = MSALWebviewParameters()
        self.webViewParamaters?.webviewType = .default
    }

    func getAuthority(forPolicy policy: String) throws -> MSALB2CAuthority {
        guard let authorityURL = URL(string: String(format: self.kEndpoint, self.kAuthorityHostName, self.kTenantName, policy)) else {
            throw NSError(domain: "SomeDomain", code: 1, userInfo: ["errorDescription": "Unable to create authority URL!"])
        }
        return try MSALB2CAuthority(url: authorityURL)
    }

    func getAccountByPolicy(withAccounts accounts: [MSALAccount], policy: String) throws -> MSALAccount? {
        for account in accounts {
            // This is a single account sample, so we only check the suffic part of the object id,
            // where object id is in the form of <object id>-<policy>.
            // For multi-account apps, the whole object id needs to be checked.
            if let homeAccountId = account.homeAccountId, let objectId = homeAccountId.objectId {
                if objectId.hasSuffix(policy.lowercased()) {
                    return account
                }
            }
        }
        return nil
    }

    func authorizationButton() {
        guard let authority = try? self.getAuthority(forPolicy: self.kSignupOrSigninPolicy) else { return }
        let parameters = MSALInteractiveTokenParameters(scopes: kScopes, webviewParameters: self.webViewParamaters!)
        parameters.promptType = .selectAccount
        parameters.authority = authority

        applicationContext.acquireToken(with: parameters) { (result, error) in

        // On error code
        guard let result = result else {
            self.updateLoggingText(text: "Could not acquire token: \(error ?? "No error informarion" as! Error)")
            return
        }

        // On success code
        self.accessToken = result.accessToken
        self.updateLoggingText(text: "Access token is \(self.accessToken ?? "Empty")")
        }
    }

    func acquireTokenSilent() {
        do {

        // Get the authority using the sign-in or sign-up user flow
        let authority = try self.getAuthority(forPolicy: self.kSignupOrSigninPolicy)

        // Get the current account from the application context
        guard let thisAccount = try self.getAccountByPolicy(withAccounts: applicationContext.allAccounts(), policy: kSignupOrSigninPolicy) else {
            self.updateLoggingText(text: "There is no account available!")
            return
        }

        // Configure the acquire token silent parameters
        let parameters = MSALSilentTokenParameters(scopes: kScopes, account:thisAccount)
        parameters.authority = authority
        parameters.loginHint = "username"

        // Acquire token silent
        self.applicationContext.acquireTokenSilent(with: parameters) { (result, error) in
            if let error = error {

                let nsError = error as NSError

                if (nsError.domain == MSALErrorDomain) {

                    if (nsError.code == MSALError.interactionRequired.rawValue) {
                        return
                    }
                }

                self.updateLoggingText(text: "Could not acquire token: \(error)")
                return
            }
        }
        } catch {
            self.updateLoggingText(text: "Unable to construct parameters before calling acquire token \(error)")
        }
    }

    func signoutButton() {
        do {
            let thisAccount = try self.getAccountByPolicy(withAccounts: applicationContext.allAccounts(), policy: kSignupOrSigninPolicy)

            if let accountToRemove = thisAccount {
                try applicationContext.remove(accountToRemove)
            } else {
                self.updateLoggingText(text: "There is no account to signing out!")
            }
        } catch  {
            self.updateLoggingText(text: "Received error signing out: \(error)")
        }
    }
}

/// The migration guide's Swift snippets (seed 004).
func migrationGuideSnippets(accountIdentifier: String) {
    let config = MSALPublicClientApplicationConfig(clientId: "<your-client-id-here>")
    do {
      let application = try MSALPublicClientApplication(configuration: config)
      // continue on with application
      do {
        let account = try application.account(forIdentifier: accountIdentifier)
        _ = account
      } catch let error as NSError {
        _ = error
      }
      do {
        let accounts = try application.allAccounts()
        _ = accounts
      } catch let error as NSError {
        _ = error
      }
    } catch let error as NSError {
      // handle error here
      _ = error
    }
}
