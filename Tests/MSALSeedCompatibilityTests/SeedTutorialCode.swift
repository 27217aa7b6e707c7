// The seeds' tutorial code (sign-in and Microsoft Graph from an iOS/macOS app; Azure AD B2C; the ADAL-to-MSAL
// migration guide), with only the UIKit/AppKit lines taken out. It must compile unchanged against this module in
// Swift 5 language mode; the test below also runs parts of it.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSAL
import XCTest

final class TutorialViewController {
    let kClientID = "Your_Application_Id_Here"
    let kGraphEndpoint = "https://graph.microsoft.com/"
    let kAuthority = "https://login.microsoftonline.com/common"
    let kRedirectUri = "msauth.com.microsoft.identitysample.MSALiOS://auth"
    let kScopes: [String] = ["user.read"]

    var accessToken = String()
    var applicationContext : MSALPublicClientApplication?
    var webViewParameters : MSALWebviewParameters?
    var currentAccount: MSALAccount?
    var log: [String] = []

    func updateLogging(text : String) { log.append(text) }
    func updateSignOutButton(enabled : Bool) {}

    func initMSAL() throws {

        guard let authorityURL = URL(string: kAuthority) else {
            self.updateLogging(text: "Unable to create authority URL")
            return
        }

        let authority = try MSALAADAuthority(url: authorityURL)

        let msalConfiguration = MSALPublicClientApplicationConfig(clientId: kClientID, redirectUri: nil, authority: authority)
        self.applicationContext = try MSALPublicClientApplication(configuration: msalConfiguration)
        self.initWebViewParams()
    }

    func initWebViewParams() {
        self.webViewParameters = MSALWebviewParameters()
    }

    func getGraphEndpoint() -> String {
        return kGraphEndpoint.hasSuffix("/") ? (kGraphEndpoint + "v1.0/me/") : (kGraphEndpoint + "/v1.0/me/");
    }

    func callGraphAPI(_ sender: AnyObject) {

        self.loadCurrentAccount { (account) in

            guard let currentAccount = account else {

                // We check to see if we have a current logged in account.
                // If we don't, then we need to sign someone in.
                self.acquireTokenInteractively()
                return
            }

            self.acquireTokenSilently(currentAccount)
        }
    }

    typealias AccountCompletion = (MSALAccount?) -> Void

    func loadCurrentAccount(completion: AccountCompletion? = nil) {

        guard let applicationContext = self.applicationContext else { return }

        let msalParameters = MSALParameters()
        msalParameters.completionBlockQueue = DispatchQueue.main

        applicationContext.getCurrentAccount(with: msalParameters, completionBlock: { (currentAccount, previousAccount, error) in

            if let error = error {
                self.updateLogging(text: "Couldn't query current account with error: \(error)")
                return
            }

            if let currentAccount = currentAccount {

                self.updateLogging(text: "Found a signed in account \(String(describing: currentAccount.username)). Updating data for that account...")

                self.updateCurrentAccount(account: currentAccount)

                if let completion = completion {
                    completion(self.currentAccount)
                }

                return
            }

            self.updateLogging(text: "Account signed out. Updating UX")
            self.accessToken = ""
            self.updateCurrentAccount(account: nil)

            if let completion = completion {
                completion(nil)
            }
        })
    }

    func acquireTokenInteractively() {

        guard let applicationContext = self.applicationContext else { return }
        guard let webViewParameters = self.webViewParameters else { return }

        // #1
        let parameters = MSALInteractiveTokenParameters(scopes: kScopes, webviewParameters: webViewParameters)
        parameters.promptType = .selectAccount

        // #2
        applicationContext.acquireToken(with: parameters) { (result, error) in

            // #3
            if let error = error {

                self.updateLogging(text: "Could not acquire token: \(error)")
                return
            }

            guard let result = result else {

                self.updateLogging(text: "Could not acquire token: No result returned")
                return
            }

            // #4
            self.accessToken = result.accessToken
            self.updateLogging(text: "Access token is \(self.accessToken)")
            self.updateCurrentAccount(account: result.account)
            self.getContentWithToken()
        }
    }

    func acquireTokenSilently(_ account : MSALAccount!) {

        guard let applicationContext = self.applicationContext else { return }

        let parameters = MSALSilentTokenParameters(scopes: kScopes, account: account)

        applicationContext.acquireTokenSilent(with: parameters) { (result, error) in

            if let error = error {

                let nsError = error as NSError

                // interactionRequired means we need to ask the user to sign-in. This usually happens
                // when the user's Refresh Token is expired or if the user has changed their password
                // among other possible reasons.

                if (nsError.domain == MSALErrorDomain) {

                    if (nsError.code == MSALError.interactionRequired.rawValue) {

                        DispatchQueue.main.async {
                            self.acquireTokenInteractively()
                        }
                        return
                    }
                }

                self.updateLogging(text: "Could not acquire token silently: \(error)")
                return
            }

            guard let result = result else {

                self.updateLogging(text: "Could not acquire token: No result returned")
                return
            }

            self.accessToken = result.accessToken
            self.updateLogging(text: "Refreshed Access token is \(self.accessToken)")
            self.updateSignOutButton(enabled: true)
            self.getContentWithToken()
        }
    }

    func getContentWithToken() {

        // Specify the Graph API endpoint
        let graphURI = getGraphEndpoint()
        let url = URL(string: graphURI)
        var request = URLRequest(url: url!)

        // Set the Authorization header for the request. We use Bearer tokens, so we specify Bearer + the token we got from the result
        request.setValue("Bearer \(self.accessToken)", forHTTPHeaderField: "Authorization")

        URLSession.shared.dataTask(with: request) { data, response, error in

            if let error = error {
                self.updateLogging(text: "Couldn't get graph result: \(error)")
                return
            }

            guard let result = try? JSONSerialization.jsonObject(with: data!, options: []) else {

                self.updateLogging(text: "Couldn't deserialize result JSON")
                return
            }

            self.updateLogging(text: "Result from Graph: \(result))")

            }.resume()
    }

    func signOut(_ sender: AnyObject) {

        guard let applicationContext = self.applicationContext else { return }

        guard let account = self.currentAccount else { return }

        do {

            /**
             Removes all tokens from the cache for this application for the provided account

             - account:    The account to remove from the cache
             */

            let signoutParameters = MSALSignoutParameters(webviewParameters: self.webViewParameters!)
            signoutParameters.signoutFromBrowser = false // set this to true if you also want to signout from browser or webview

            applicationContext.signout(with: account, signoutParameters: signoutParameters, completionBlock: {(success, error) in

                if let error = error {
                    self.updateLogging(text: "Couldn't sign out account with error: \(error)")
                    return
                }

                self.updateLogging(text: "Sign out completed successfully")
                self.accessToken = ""
                self.updateCurrentAccount(account: nil)
            })

        }
    }

    func updateCurrentAccount(account: MSALAccount?) {
        self.currentAccount = account
    }

    func getDeviceMode() {
        self.applicationContext?.getDeviceInformation(with: nil, completionBlock: { (deviceInformation, error) in
            guard let deviceInfo = deviceInformation else {
                self.updateLogging(text: "Device info not returned. Error: \(String(describing: error))")
                return
            }
            let isSharedDevice = deviceInfo.deviceMode == .shared
            let modeString = isSharedDevice ? "shared" : "private"
            self.updateLogging(text: "Received device info. Device is in the \(modeString) mode.")
        })
    }
}

final class SeedCompatibilityTests: XCTestCase {
    func testTutorialInitializesAndReportsNoAccount() throws {
        let cacheFile = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: cacheFile) }
        let controller = TutorialViewController()
        try controller.initMSAL()
        XCTAssertNotNil(controller.applicationContext)
        XCTAssertEqual(controller.getGraphEndpoint(), "https://graph.microsoft.com/v1.0/me/")
    }

    func testB2CSampleBuildsItsApplication() {
        let controller = B2CViewController()
        controller.setUp()
        XCTAssertNotNil(controller.applicationContext, controller.log.joined(separator: "\n"))
        let authority = try? controller.getAuthority(forPolicy: "b2c_1_susi")
        XCTAssertEqual(authority?.url.absoluteString, "https://fabrikamb2c.b2clogin.com/tfp/fabrikamb2c.onmicrosoft.com/b2c_1_susi")
    }

    func testInteractionRequiredBridgesToNSError() {
        let error: Error = MSALErrorInfo(.interactionRequired, description: "test")
        let nsError = error as NSError
        XCTAssertEqual(nsError.domain, MSALErrorDomain)
        XCTAssertEqual(nsError.code, MSALError.interactionRequired.rawValue)
    }
}

final class NativeAuthSampleCompatibilityTests: XCTestCase {
    func testAuthorityFactoryMakesTheSubclassTheURLNames() throws {
        XCTAssertTrue(try MSALAuthority(url: URL(string: "https://contoso.ciamlogin.com")!) is MSALCIAMAuthority)
        XCTAssertTrue(try MSALAuthority(url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/b2c_1_susi")!)
                      is MSALB2CAuthority)
        XCTAssertTrue(try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!) is MSALAADAuthority)
        let base: MSALAuthority = try MSALAuthority(url: URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")!)
        XCTAssertEqual((base as? MSALCIAMAuthority)?.url.host, "contoso.ciamlogin.com")
    }

    func testNativeAuthConfigurationTakesAnMSALAuthority() throws {
        let config = try NativeAuthSampleConfiguration.make(clientId: "2d3bc7a5-2d62-4b9b-8c42-1d7f0b3a6c11", tenant: "contoso")
        let application = try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: config)
        XCTAssertNotNil(application)
        let aad = MSALNativeAuthPublicClientApplicationConfig(
            clientId: "2d3bc7a5-2d62-4b9b-8c42-1d7f0b3a6c11",
            authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!), challengeTypes: [.OOB])
        XCTAssertThrowsError(try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: aad))
    }
}
