import Foundation
import MSALSupport

extension MSALCredentialChain {
    /// The msal-account step: the account signed in with the `msal` tool, silently, with the settings the tool would
    /// use (``ToolSettings``: the environment, its configuration file's profile, its sign-in record, its defaults) and
    /// its token cache (the file `MSAL_CACHE`, the profile or the record names, else its protected default).
    func msalAccountToken(scopes: [String]) async throws -> Token {
        let settings: ToolSettings
        do {
            settings = try ToolSettings.fromEnvironment(environment)
        } catch {
            throw skipped("the msal tool's configuration cannot be used: \(error.message)")
        }
        guard let url = URL(string: settings.authority), url.scheme != nil, url.host != nil else {
            throw skipped("the msal tool's authority \(settings.authority) is not a URL.")
        }
        let authority = try MSALAuthority.authority(with: url)
        let config = MSALPublicClientApplicationConfig(clientId: settings.signInClientId, redirectUri: nil, authority: authority)
        config.clientApplicationCapabilities = ToolDefaults.clientCapabilities(environment: environment)
        // An account signed in through the identity broker (`msal login --broker`, recorded as `broker: true`) keeps
        // getting its tokens there: the broker holds its session, and the cache has no refresh token for it.
        config.brokerOptions = MSALBrokerOptions(enabledOnLinux: settings.usesBroker)
        var known: [MSALAuthority] = authority is MSALB2CAuthority ? [authority] : []
        for text in settings.knownAuthorities {
            if let url = URL(string: text) { known.append(try MSALAuthority.authority(with: url)) }
        }
        if !known.isEmpty { config.knownAuthorities = known }
        config.httpClient = try httpClient ?? transport(trusting: settings.caFile)
        config.cacheConfig.storage = storage(at: settings.cache)
        let app = try MSALPublicClientApplication(configuration: config)
        let accounts = try app.allAccounts()
        let account: MSALAccount
        if let wanted = settings.given.account {
            let matching = accounts.filter {
                $0.username?.caseInsensitiveCompare(wanted) == .orderedSame || $0.identifier == wanted
            }
            guard matching.count == 1, let only = matching.first else {
                throw skipped("no account \(wanted) is signed in with the msal tool (msal login).")
            }
            account = only
        } else if let active = settings.recordedSignIn?.homeAccountId,
                  let match = accounts.first(where: { $0.identifier == active }) {
            account = match
        } else {
            guard accounts.count == 1, let only = accounts.first else {
                throw skipped(accounts.isEmpty ? "no account is signed in with the msal tool (msal login)."
                                               : "several accounts are signed in; set MSAL_ACCOUNT.")
            }
            account = only
        }
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: scopes, account: account))
        return Token(accessToken: result.accessToken, expiresOn: result.expiresOn, step: .msalAccount)
    }

    /// The cache the tool uses: a plain file it was given, else its protected default for this environment.
    private func storage(at path: String?) -> any MSALTokenCacheStorage {
        if let path {
            return MSALFileTokenCacheStorage(fileURL: URL(fileURLWithPath: HomePath.expand(path, home: value("HOME"))))
        }
        return MSALSecureTokenCacheStorage(configuration: MSALSecureTokenCacheConfig(environment: environment))
    }

    /// The platform's transport, also trusting the certificate authorities of the tool's CA file (Linux), if any.
    private func transport(trusting caFile: String?) throws -> (any MSALHTTPClient)? {
        guard let caFile else { return nil }
        let roots = ToolDefaults.trustRootsPEM(at: caFile, home: value("HOME"))
        guard let pem = roots.pem else {
            throw skipped("the msal tool's CA file \(roots.path) cannot be read as PEM certificates.")
        }
        #if os(Linux)
        return MSALCurlHTTPClient(additionalTrustRootsPEM: [pem])
        #else
        return nil
        #endif
    }
}
