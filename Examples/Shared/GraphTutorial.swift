import Foundation
public import MSAL

/// Settings of the Graph tutorial: the seeds' `kClientID`, `kAuthority`, `kScopes`, `kGraphEndpoint`.
public struct GraphTutorialSettings: Sendable {
    /// The application (client) id (`kClientID`).
    public var clientId: String
    /// The authority URL (`kAuthority`), such as `https://login.microsoftonline.com/common`.
    public var authority: String
    /// The redirect URI; nil for the platform default (`http://localhost` on Linux).
    public var redirectUri: String?
    /// The scopes (`kScopes`).
    public var scopes: [String]
    /// The Microsoft Graph endpoint (`kGraphEndpoint`), such as `https://graph.microsoft.com/`.
    public var graphEndpoint: String
    /// Where the token cache lives; nil for MSAL's default file.
    public var cacheStorage: (any MSALTokenCacheStorage)?
    /// The user agent of interactive sign-in; nil for the system browser.
    public var webAuthenticator: (any MSALWebAuthenticator)?

    /// Creates settings.
    public init(clientId: String, authority: String, redirectUri: String? = nil, scopes: [String] = ["user.read"],
                graphEndpoint: String = "https://graph.microsoft.com/", cacheStorage: (any MSALTokenCacheStorage)? = nil,
                webAuthenticator: (any MSALWebAuthenticator)? = nil) {
        self.clientId = clientId
        self.authority = authority
        self.redirectUri = redirectUri
        self.scopes = scopes
        self.graphEndpoint = graphEndpoint
        self.cacheStorage = cacheStorage
        self.webAuthenticator = webAuthenticator
    }
}

/// The logic of Microsoft's "Sign in users and call Microsoft Graph from an iOS or macOS app" tutorial as a console
/// program: the view controller's methods under their names, each step written to the log like the tutorial's
/// text view (``updateLogging(text:)``). Access tokens are never written out.
public final class GraphTutorial {
    let settings: GraphTutorialSettings
    let log: @Sendable (String) -> Void
    var applicationContext: MSALPublicClientApplication?
    var webViewParameters: MSALWebviewParameters?
    var currentAccount: MSALAccount?
    var accessToken = ""
    /// How many steps failed.
    public private(set) var failures = 0
    /// The last Graph `/me` answer, pretty-printed.
    public private(set) var graphResult: String?

    /// Creates the tutorial; `log` receives each line of the text view.
    public init(settings: GraphTutorialSettings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
    }

    /// Runs the whole tutorial: init MSAL, load the current account, acquire a token interactively and call Graph,
    /// acquire silently and call Graph again, read the device information, sign out. Returns whether every step
    /// succeeded.
    public func run() async -> Bool {
        do {
            try initMSAL()
        } catch {
            updateLogging(text: "Unable to create Application Context \(error)")
            return false
        }
        initWebViewParams()
        await callGraphAPI()   // no account yet (loaded first, as the view loads it): interactive
        await callGraphAPI()   // signed in: silent
        await getDeviceMode()
        await signOut()
        await loadCurrentAccount()
        return failures == 0
    }

    func initMSAL() throws {
        guard let authorityURL = URL(string: settings.authority) else {
            updateLogging(text: "Unable to create authority URL")
            throw MSALErrorInfo.invalidParameter("The authority URL is invalid.")
        }
        let authority = try MSALAuthority(url: authorityURL)
        let msalConfiguration = MSALPublicClientApplicationConfig(clientId: settings.clientId, redirectUri: settings.redirectUri,
                                                                  authority: authority)
        if let storage = settings.cacheStorage { msalConfiguration.cacheConfig.storage = storage }
        // Continuous access evaluation: Graph may revoke a token early with a claims challenge, answered below.
        msalConfiguration.clientApplicationCapabilities = ["cp1"]
        applicationContext = try MSALPublicClientApplication(configuration: msalConfiguration)
        updateLogging(text: "Created the application context for client \(settings.clientId) at \(settings.authority)")
    }

    func initWebViewParams() {
        let parameters = MSALWebviewParameters()
        if let authenticator = settings.webAuthenticator { parameters.webAuthenticator = authenticator }
        webViewParameters = parameters
    }

    func getGraphEndpoint() -> String {
        settings.graphEndpoint.hasSuffix("/") ? (settings.graphEndpoint + "v1.0/me/") : (settings.graphEndpoint + "/v1.0/me/")
    }

    func callGraphAPI() async {
        if let account = await loadCurrentAccount() {
            await acquireTokenSilently(account)
        } else {
            // No signed-in account: sign someone in.
            await acquireTokenInteractively()
        }
    }

    @discardableResult
    func loadCurrentAccount() async -> MSALAccount? {
        guard let applicationContext else { return nil }
        do {
            let (account, _) = try await applicationContext.currentAccount(with: MSALParameters())
            if let account {
                updateLogging(text: "Found a signed in account \(account.username ?? "(no user name)"). Updating data for that account...")
                updateCurrentAccount(account: account)
                return account
            }
            updateLogging(text: "Account signed out. Updating UX")
            accessToken = ""
            updateCurrentAccount(account: nil)
        } catch {
            fail("Couldn't query current account with error: \(error)")
        }
        return nil
    }

    func acquireTokenInteractively() async {
        guard let applicationContext, let webViewParameters else { return }
        let parameters = MSALInteractiveTokenParameters(scopes: settings.scopes, webviewParameters: webViewParameters)
        parameters.promptType = .selectAccount
        do {
            let result = try await applicationContext.acquireToken(with: parameters)
            accessToken = result.accessToken
            updateLogging(text: "Access token acquired interactively (\(accessToken.count) characters, not shown), expires \(result.expiresOn.map { "\($0)" } ?? "?")")
            updateCurrentAccount(account: result.account)
            await getContentWithToken()
        } catch {
            fail("Could not acquire token: \(error)")
        }
    }

    func acquireTokenSilently(_ account: MSALAccount) async {
        guard let applicationContext else { return }
        let parameters = MSALSilentTokenParameters(scopes: settings.scopes, account: account)
        do {
            let result = try await applicationContext.acquireTokenSilent(with: parameters)
            accessToken = result.accessToken
            // A valid cached token costs no request; only a token past (or near) its expiry is refreshed.
            let how = result.metadata.tokenSource == .cache ? "found in the cache" : "refreshed"
            updateLogging(text: "Access token \(how), silently (\(accessToken.count) characters, not shown), expires \(result.expiresOn.map { "\($0)" } ?? "?")")
            await getContentWithToken()
        } catch let error as MSALErrorInfo where error.code == .interactionRequired {
            // The refresh token expired or was revoked, the password changed, ...: sign in again.
            updateLogging(text: "Interaction required; signing in interactively")
            await acquireTokenInteractively()
        } catch {
            fail("Could not acquire token silently: \(error)")
        }
    }

    func getContentWithToken() async {
        guard let url = URL(string: getGraphEndpoint()) else {
            fail("Couldn't build the Graph URL from \(settings.graphEndpoint)")
            return
        }
        do {
            var response = try await GraphRequest.get(url, accessToken: accessToken)
            if let claims = response.claimsChallenge, let fresh = await answerClaimsChallenge(claims) {
                // Once only: a second challenge is reported as an error.
                accessToken = fresh
                response = try await GraphRequest.get(url, accessToken: accessToken)
            }
            guard (200..<300).contains(response.statusCode),
                  (try? JSONSerialization.jsonObject(with: response.body)) != nil else {
                fail("Couldn't get graph result: HTTP \(response.statusCode)")
                return
            }
            graphResult = response.prettyBody
            updateLogging(text: "Result from Graph: \(response.prettyBody)")
        } catch {
            fail("Couldn't get graph result: \(error)")
        }
    }

    /// A token that satisfies Graph's claims challenge: a silent request with the claims, which skips the cached
    /// token; interactive when the user must sign in again. Nil when none could be had.
    func answerClaimsChallenge(_ claims: String) async -> String? {
        guard let applicationContext, let account = currentAccount else { return nil }
        updateLogging(text: "Graph sent a claims challenge (continuous access evaluation); getting a new token")
        do {
            let parameters = MSALSilentTokenParameters(scopes: settings.scopes, account: account)
            parameters.claimsRequest = try MSALClaimsRequest(jsonString: claims)
            return try await applicationContext.acquireTokenSilent(with: parameters).accessToken
        } catch let error as MSALErrorInfo where error.code == .interactionRequired {
            guard let webViewParameters else { return nil }
            let parameters = MSALInteractiveTokenParameters(scopes: settings.scopes, webviewParameters: webViewParameters)
            parameters.claimsRequest = try? MSALClaimsRequest(jsonString: claims)
            return try? await applicationContext.acquireToken(with: parameters).accessToken
        } catch {
            fail("Could not answer the claims challenge: \(error)")
            return nil
        }
    }

    func getDeviceMode() async {
        guard let applicationContext else { return }
        do {
            let deviceInfo = try await applicationContext.deviceInformation(with: nil)
            let modeString = deviceInfo.deviceMode == .shared ? "shared" : "private"
            updateLogging(text: "Received device info. Device is in the \(modeString) mode.")
        } catch {
            fail("Device info not returned. Error: \(error)")
        }
    }

    func signOut() async {
        guard let applicationContext, let account = currentAccount, let webViewParameters else { return }
        let signoutParameters = MSALSignoutParameters(webviewParameters: webViewParameters)
        signoutParameters.signoutFromBrowser = false
        do {
            _ = try await applicationContext.signout(with: account, signoutParameters: signoutParameters)
            updateLogging(text: "Sign out completed successfully")
            accessToken = ""
            updateCurrentAccount(account: nil)
        } catch {
            fail("Couldn't sign out account with error: \(error)")
        }
    }

    func updateCurrentAccount(account: MSALAccount?) {
        currentAccount = account
    }

    /// One line of the tutorial's log text view.
    func updateLogging(text: String) {
        log(text)
    }

    private func fail(_ text: String) {
        failures += 1
        updateLogging(text: text)
    }
}
