import Foundation
import MSAL

/// Builds the MSAL application and picks the cached account from the common options.
struct ApplicationFactory {
    let options: CommonOptions

    /// A transport that also trusts `--ca-file`'s certificate authorities; nil for MSAL's default (set up only when
    /// a request is sent, so that a cached token costs no transport).
    func makeHTTPClient() throws -> (any MSALHTTPClient)? {
        guard let path = options.resolvedCAFile else { return nil }
        let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        guard let data = try? Data(contentsOf: file), data.count <= 1 << 20,
              let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN CERTIFICATE-----") else {
            throw CLIError(message: "The CA file \(file.path) cannot be read as PEM certificates.")
        }
        #if os(Linux)
        return MSALNIOHTTPClient(additionalTrustRootsPEM: [pem])
        #else
        throw CLIError(message: "--ca-file is not supported on this platform; add the CA to the system trust store.")
        #endif
    }

    func makeApplication() throws -> MSALPublicClientApplication {
        try makeApplication(httpClient: makeHTTPClient())
    }

    func makeApplication(httpClient: (any MSALHTTPClient)?) throws -> MSALPublicClientApplication {
        guard let clientId = options.resolvedClientId else {
            throw CLIError(message: "No client id: pass --client-id ID or set MSAL_CLIENT_ID.")
        }
        guard let url = URL(string: options.resolvedAuthority), url.scheme != nil, url.host != nil else {
            throw CLIError(message: "The authority \"\(options.resolvedAuthority)\" is not a URL.")
        }
        // The subclass of the URL's kind: a B2C authority the user names is trusted as a known authority.
        let authority = try MSALAuthority.authority(with: url)
        let configuration = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: options.resolvedRedirectUri,
                                                              authority: authority)
        configuration.httpClient = httpClient
        configuration.clientApplicationCapabilities = ClientCapabilities.resolved()   // cp1 unless MSAL_CLIENT_CAPABILITIES
        if authority is MSALB2CAuthority { configuration.knownAuthorities = [authority] }
        configuration.cacheConfig.storage = cacheStorage()
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// The cache file of `--cache` (else MSAL's default file).
    func cacheStorage() -> MSALFileTokenCacheStorage {
        let cacheFile = options.resolvedCache.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) }
            ?? MSALFileTokenCacheStorage.defaultFileURL()
        // Moving an unreadable cache aside is never silent: say so on stderr, verbose or not.
        return MSALFileTokenCacheStorage(fileURL: cacheFile, setAsideHandler: { file, movedTo in
            CLI.err("warning: the token cache file \(file.path) could not be read and was moved to \(movedTo.path)")
        })
    }

    /// The account named by `--account`, else the only signed-in account. Throws an interaction-required error
    /// when there is none.
    func selectAccount(in application: MSALPublicClientApplication) throws -> MSALAccount {
        let accounts = try application.allAccounts()
        if let wanted = options.resolvedAccount {
            if let match = accounts.first(where: { $0.username?.caseInsensitiveCompare(wanted) == .orderedSame
                || $0.identifier?.caseInsensitiveCompare(wanted) == .orderedSame }) {
                return match
            }
            throw MSALErrorInfo(.interactionRequired, description: "No signed-in account \"\(wanted)\" is in the cache.")
        }
        guard let first = accounts.first else {
            throw MSALErrorInfo(.interactionRequired, description: "No account is signed in.")
        }
        guard accounts.count == 1 else {
            let names = accounts.compactMap(\.username).joined(separator: ", ")
            throw CLIError(message: "Several accounts are signed in (\(names)); choose one with --account.")
        }
        return first
    }

    /// A silent token for the selected account.
    func silentToken(_ application: MSALPublicClientApplication, forceRefresh: Bool = false) async throws -> MSALResult {
        let account = try selectAccount(in: application)
        let parameters = MSALSilentTokenParameters(scopes: options.resolvedScopes, account: account)
        parameters.forceRefresh = forceRefresh
        return try await application.acquireTokenSilent(with: parameters)
    }
}

/// JSON descriptions of accounts and results, without any token.
enum Describe {
    static func account(_ account: MSALAccount) -> [String: Any] {
        var object: [String: Any] = [
            "username": account.username ?? "",
            "home_account_id": account.identifier ?? "",
            "environment": account.environment,
        ]
        if let tenantId = account.homeAccountId?.tenantId { object["home_tenant_id"] = tenantId }
        if let tenants = account.tenantProfiles { object["tenant_ids"] = tenants.compactMap(\.tenantId) }
        return object
    }

    static func signIn(_ result: MSALResult) -> [String: Any] {
        var object: [String: Any] = ["account": account(result.account), "scopes": result.scopes,
                                     "authority": result.authority.url.absoluteString]
        if let expiresOn = result.expiresOn { object["expires_on"] = ExternalNumber.clampedInteger(expiresOn.timeIntervalSince1970) }
        return object
    }
}
