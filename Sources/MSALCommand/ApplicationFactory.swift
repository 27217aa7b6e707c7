import Foundation
import MSALSupport
import MSAL

/// Builds the MSAL application and picks the cached account from the common options.
struct ApplicationFactory {
    let options: CommonOptions
    /// The token cache: the file of `--cache` as plain JSON (shared with other MSAL libraries), else MSAL's
    /// protected default storage (``CacheChoice``).
    let cache: CacheChoice

    init(options: CommonOptions) {
        self.options = options
        self.cache = CacheChoice(path: options.resolvedCache)
    }

    /// A transport that also trusts `--ca-file`'s certificate authorities; nil for MSAL's default (set up only when
    /// a request is sent, so that a cached token costs no transport).
    func makeHTTPClient() throws -> (any MSALHTTPClient)? {
        guard let path = options.resolvedCAFile else { return nil }
        let roots = ToolDefaults.trustRootsPEM(at: path, home: ProcessConfiguration.environment["HOME"])
        guard let pem = roots.pem else {
            throw CLIError(message: "The CA file \(roots.path) cannot be read as PEM certificates.")
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
        let clientId = options.signInClientId
        guard let url = URL(string: options.resolvedAuthority), url.scheme != nil, url.host != nil else {
            throw CLIError(message: "The authority \"\(options.resolvedAuthority)\" is not a URL.")
        }
        // The subclass of the URL's kind: a B2C authority the user names is trusted as a known authority.
        let authority = try MSALAuthority.authority(with: url)
        let configuration = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: options.resolvedRedirectUri,
                                                              authority: authority)
        configuration.httpClient = httpClient
        configuration.clientApplicationCapabilities = ToolDefaults.clientCapabilities(environment: ProcessConfiguration.environment)
        var known: [MSALAuthority] = authority is MSALB2CAuthority ? [authority] : []
        for text in options.resolvedKnownAuthorities {
            guard let url = URL(string: text) else { continue }
            known.append(try MSALAuthority.authority(with: url))
        }
        if !known.isEmpty { configuration.knownAuthorities = known }
        configuration.cacheConfig.storage = cache.storage
        configuration.brokerOptions = MSALBrokerOptions(enabledOnLinux: options.settings.usesBroker)
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// Where the active account of this application and cache is recorded.
    var activeAccountKey: String? {
        ActiveAccountStore.key(clientId: options.signInClientId, cache: cache.location)
    }

    /// Makes `account` the active one.
    func activate(_ account: MSALAccount) throws {
        guard let key = activeAccountKey else { return }
        try ActiveAccountStore(environment: ProcessConfiguration.environment).setActive(account.identifier, for: key)
    }

    /// Records what `account` signed in with (``SignInRecords``) and makes it the active sign-in, so that later
    /// commands need no flags: the client id, the authority, the CA file, the Graph endpoint, the cache and the known
    /// authorities in use (paths made absolute).
    func record(_ account: MSALAccount) throws {
        guard let id = account.identifier else { return }
        let file = ProcessConfiguration.signInsFile
        var records = SignInRecords.load(file)
        func absolute(_ path: String?) -> String? { path.map { URL(fileURLWithPath: HomePath.expand($0)).path } }
        let known = options.resolvedKnownAuthorities
        records.accounts[id] = SignInRecords.Entry(
            username: account.username, clientId: options.signInClientId, authority: options.resolvedAuthority,
            caFile: absolute(options.resolvedCAFile), graphEndpoint: options.explicitGraphEndpoint,
            cache: absolute(options.resolvedCache), knownAuthorities: known.isEmpty ? nil : known,
            broker: options.settings.usesBroker ? true : nil)
        records.active = id
        do {
            try records.save(file)
        } catch {
            throw CLIError(message: error.message)
        }
    }

    /// Forgets the recorded sign-in of `account` (msal logout).
    func forgetRecord(of account: MSALAccount) {
        guard let id = account.identifier else { return }
        let file = ProcessConfiguration.signInsFile
        var records = SignInRecords.load(file)
        guard records.accounts.removeValue(forKey: id) != nil || records.active == id else { return }
        if records.active == id { records.active = nil }
        try? records.save(file)
    }

    /// The active account's home account id, if one was recorded.
    var activeAccountId: String? {
        activeAccountKey.flatMap { ActiveAccountStore(environment: ProcessConfiguration.environment).active(for: $0) }
    }

    /// The account named by `--account`, else the active account (`msal switch`), else the only signed-in account.
    /// Throws an interaction-required error when there is none.
    func selectAccount(in application: MSALPublicClientApplication) throws -> MSALAccount {
        let accounts = try application.allAccounts()
        if let wanted = options.resolvedAccount {
            if let match = accounts.first(where: { AccountMatch.matches($0, wanted) }) { return match }
            throw MSALErrorInfo(.interactionRequired, description: "No signed-in account \"\(wanted)\" is in the cache.")
        }
        guard let first = accounts.first else {
            throw MSALErrorInfo(.interactionRequired, description: "No account is signed in.")
        }
        if let active = activeAccountId, let match = accounts.first(where: { $0.identifier == active }) { return match }
        guard accounts.count == 1 else {
            let names = accounts.compactMap(\.username)
            throw CLIError(message: "Several accounts are signed in (\(names.joined(separator: ", "))) and none is active: "
                           + "run `msal switch \(names.first ?? "ACCOUNT")`, or name one with --account.")
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
        object["metadata"] = ResultMetadataJSON.object(result.metadata)
        return object
    }
}
