public import Foundation
public import MSAL

/// Settings of the Azure AD B2C sample: the seeds' `kTenantName`, `kAuthorityHostName`, policies, `kClientID`.
public struct B2CTutorialSettings: Sendable {
    /// The application (client) id.
    public var clientId: String
    /// The B2C tenant, such as `fabrikamb2c.onmicrosoft.com`.
    public var tenantName: String
    /// The authority base URL, such as `https://fabrikamb2c.b2clogin.com`.
    public var authorityHost: String
    /// The sign-up or sign-in user flow (`kSignupOrSigninPolicy`).
    public var signupOrSigninPolicy: String
    /// The profile editing user flow (`kEditProfilePolicy`).
    public var editProfilePolicy: String
    /// The scopes of the sample's API (`kScopes`).
    public var scopes: [String]
    /// The redirect URI; nil for the platform default.
    public var redirectUri: String?
    /// The API to call with the token (`kGraphURI`); nil skips the call.
    public var apiURL: URL?
    /// Where the token cache lives; nil for MSAL's default file.
    public var cacheStorage: (any MSALTokenCacheStorage)?
    /// The user agent of interactive sign-in; nil for the system browser.
    public var webAuthenticator: (any MSALWebAuthenticator)?

    /// Creates settings.
    public init(clientId: String, tenantName: String, authorityHost: String, signupOrSigninPolicy: String = "B2C_1_signupsignin",
                editProfilePolicy: String = "B2C_1_profileediting", scopes: [String], redirectUri: String? = nil,
                apiURL: URL? = nil, cacheStorage: (any MSALTokenCacheStorage)? = nil,
                webAuthenticator: (any MSALWebAuthenticator)? = nil) {
        self.clientId = clientId
        self.tenantName = tenantName
        self.authorityHost = authorityHost
        self.signupOrSigninPolicy = signupOrSigninPolicy
        self.editProfilePolicy = editProfilePolicy
        self.scopes = scopes
        self.redirectUri = redirectUri
        self.apiURL = apiURL
        self.cacheStorage = cacheStorage
        self.webAuthenticator = webAuthenticator
    }
}

/// The logic of Microsoft's Azure AD B2C iOS sample as a console program: sign up or sign in, edit the profile,
/// refresh silently by policy, call the API, sign out. Each step is logged like the sample's text view
/// (``updateLoggingText(text:)``); tokens are never written out.
public final class B2CTutorial {
    let settings: B2CTutorialSettings
    let log: @Sendable (String) -> Void
    var applicationContext: MSALPublicClientApplication?
    var webViewParamaters: MSALWebviewParameters?
    var accessToken: String?
    /// How many steps failed.
    public private(set) var failures = 0

    /// Creates the sample; `log` receives each line of the text view.
    public init(settings: B2CTutorialSettings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
    }

    /// Runs the whole sample. Returns whether every step succeeded.
    public func run() async -> Bool {
        do {
            let siginPolicyAuthority = try getAuthority(forPolicy: settings.signupOrSigninPolicy)
            let editProfileAuthority = try getAuthority(forPolicy: settings.editProfilePolicy)
            let pcaConfig = MSALPublicClientApplicationConfig(clientId: settings.clientId, redirectUri: settings.redirectUri,
                                                              authority: siginPolicyAuthority)
            pcaConfig.knownAuthorities = [siginPolicyAuthority, editProfileAuthority]
            if let storage = settings.cacheStorage { pcaConfig.cacheConfig.storage = storage }
            applicationContext = try MSALPublicClientApplication(configuration: pcaConfig)
            initWebViewParams()
            updateLoggingText(text: "Created the application for \(settings.tenantName) (\(settings.signupOrSigninPolicy))")
        } catch {
            updateLoggingText(text: "Unable to create application \(error)")
            return false
        }
        await authorizationButton()
        await editProfile()
        await refreshToken()
        await callGraphAPI()
        signoutButton()
        return failures == 0
    }

    func initWebViewParams() {
        let parameters = MSALWebviewParameters()
        if let authenticator = settings.webAuthenticator { parameters.webAuthenticator = authenticator }
        webViewParamaters = parameters
    }

    /// Sign up or sign in with the sign-up-or-sign-in user flow.
    func authorizationButton() async {
        guard let applicationContext, let webViewParamaters else { return }
        do {
            let parameters = MSALInteractiveTokenParameters(scopes: settings.scopes, webviewParameters: webViewParamaters)
            parameters.promptType = .selectAccount
            parameters.authority = try getAuthority(forPolicy: settings.signupOrSigninPolicy)
            let result = try await applicationContext.acquireToken(with: parameters)
            accessToken = result.accessToken
            updateLoggingText(text: "Signed in as \(result.account.username ?? "(no user name)"); access token acquired (not shown)")
        } catch {
            fail("Could not acquire token: \(error)")
        }
    }

    /// Edit the profile with the profile-editing user flow.
    func editProfile() async {
        guard let applicationContext, let webViewParamaters else { return }
        do {
            let parameters = MSALInteractiveTokenParameters(scopes: settings.scopes, webviewParameters: webViewParamaters)
            parameters.authority = try getAuthority(forPolicy: settings.editProfilePolicy)
            // Each user flow issues its own account id, so the user is hinted rather than pinned.
            parameters.loginHint = try getAccountByPolicy(withAccounts: applicationContext.allAccounts(),
                                                          policy: settings.signupOrSigninPolicy)?.username
            _ = try await applicationContext.acquireToken(with: parameters)
            updateLoggingText(text: "Successfully edited profile")
        } catch {
            fail("Could not edit profile: \(error)")
        }
    }

    /// Acquire a fresh token silently for the sign-in user flow's account.
    func refreshToken() async {
        guard let applicationContext else { return }
        do {
            let authority = try getAuthority(forPolicy: settings.signupOrSigninPolicy)
            guard let thisAccount = try getAccountByPolicy(withAccounts: applicationContext.allAccounts(),
                                                           policy: settings.signupOrSigninPolicy) else {
                fail("There is no account available!")
                return
            }
            let parameters = MSALSilentTokenParameters(scopes: settings.scopes, account: thisAccount)
            parameters.authority = authority
            let result = try await applicationContext.acquireTokenSilent(with: parameters)
            accessToken = result.accessToken
            updateLoggingText(text: "Refreshing token silently: access token acquired (not shown), expires \(result.expiresOn.map { "\($0)" } ?? "?")")
        } catch let error as MSALErrorInfo where error.code == .interactionRequired {
            updateLoggingText(text: "Interaction required; signing in again")
            await authorizationButton()
        } catch {
            fail("Could not acquire token: \(error)")
        }
    }

    /// Call the sample's API with the token.
    func callGraphAPI() async {
        guard let url = settings.apiURL else {
            updateLoggingText(text: "No API URL configured; skipping the API call")
            return
        }
        guard let accessToken else {
            fail("Operation failed because could not find an access token!")
            return
        }
        updateLoggingText(text: "Calling the API....")
        do {
            let response = try await GraphRequest.get(url, accessToken: accessToken)
            updateLoggingText(text: "API response (HTTP \(response.statusCode)): \(response.prettyBody)")
        } catch {
            fail("Could not call API: \(error)")
        }
    }

    /// Sign out: remove the accounts of both user flows from the cache.
    func signoutButton() {
        guard let applicationContext else { return }
        do {
            var removed = 0
            for policy in [settings.signupOrSigninPolicy, settings.editProfilePolicy] {
                if let accountToRemove = try getAccountByPolicy(withAccounts: applicationContext.allAccounts(), policy: policy) {
                    try applicationContext.remove(accountToRemove)
                    removed += 1
                }
            }
            accessToken = nil
            updateLoggingText(text: removed > 0 ? "Signed out" : "There is no account to signing out!")
        } catch {
            fail("Received error signing out: \(error)")
        }
    }

    func getAuthority(forPolicy policy: String) throws -> MSALB2CAuthority {
        var host = settings.authorityHost
        while host.hasSuffix("/") { host.removeLast() }
        guard let authorityURL = URL(string: "\(host)/tfp/\(settings.tenantName)/\(policy)") else {
            throw MSALErrorInfo.invalidParameter("Unable to create authority URL")
        }
        return try MSALB2CAuthority(url: authorityURL)
    }

    /// The account signed in with `policy`: B2C account ids end with the policy name.
    func getAccountByPolicy(withAccounts accounts: [MSALAccount], policy: String) throws -> MSALAccount? {
        accounts.first { account in
            account.homeAccountId?.objectId?.lowercased().hasSuffix(policy.lowercased()) ?? false
        }
    }

    func updateLoggingText(text: String) {
        log(text)
    }

    private func fail(_ text: String) {
        failures += 1
        updateLoggingText(text: text)
    }
}
