import Foundation
import MSALSupport
import MSAL

/// Builds the MSAL application and picks the cached account from the common options.
struct ApplicationFactory {
    let options: CommonOptions
    /// The token cache: the file of `--cache` as plain JSON (shared with other MSAL libraries), else MSAL's
    /// protected default storage (``CacheChoice``).
    let cache: CacheChoice

    /// Whether the application signs in and gets tokens through the device's identity broker: as the settings say,
    /// unless `msal login` found none answering (``LoginCommand/brokerAnswers(options:)``).
    var usesBroker: Bool

    init(options: CommonOptions) {
        self.options = options
        self.cache = CacheChoice(path: options.resolvedCache)
        self.usesBroker = options.settings.usesBroker
    }

    /// A transport that also trusts `--ca-file`'s certificate authorities; nil for MSAL's default (set up only when
    /// a request is sent, so that a cached token costs no transport).
    ///
    /// A CA file given with a flag, a variable or the profile must be readable (else a usage error, exit 64). A CA
    /// file the sign-in record names may be gone (an emulator removes its CA file when it stops): commands that need
    /// no network still work, and the first request fails saying which file, that it came from the record, and how to
    /// sign in again (``MissingTrustRootsClient``).
    func makeHTTPClient() throws -> (any MSALHTTPClient)? {
        guard let path = options.resolvedCAFile else { return nil }
        let roots = ToolDefaults.trustRootsPEM(at: path, home: ProcessConfiguration.environment["HOME"])
        guard let pem = roots.pem else {
            let problem = FileManager.default.fileExists(atPath: roots.path) ? "cannot be read as PEM certificates"
                : "does not exist"
            guard let source = options.caFileSource, source != .record else {
                return MissingTrustRootsClient(error: recordedCAFileError(path: roots.path, problem: problem))
            }
            throw CLIError(message: "The CA file \(roots.path) (from \(source.name)) \(problem). Give the PEM file of the "
                           + "certificate authority to trust, such as the CA file `msal emulator` prints.", exitCode: CLIExit.usage)
        }
        #if os(Linux)
        return MSALCurlHTTPClient(additionalTrustRootsPEM: [pem])
        #else
        throw CLIError(message: "--ca-file is not supported on this platform; add the CA to the system trust store.")
        #endif
    }

    /// The error of a request made with a recorded CA file that is gone: which file, that the record named it, and
    /// the one command that signs in again (exit 3).
    private func recordedCAFileError(path: String, problem: String) -> CLIError {
        let who = options.recordedSignIn?.entry.username.map { "\($0)'s sign-in" } ?? "the active sign-in"
        return CLIError(message: "The CA file \(path) \(problem); it is the one \(who) was made with (recorded in "
                        + "\(ProcessConfiguration.signInsFile.path)). If it was an emulator's, the emulator has stopped: start "
                        + "it again (`msal emulator`) and sign in with the authority and CA file it prints: msal login "
                        + "--authority <authority> --ca-file <CA file>", exitCode: CLIExit.interactionRequired)
    }

    func makeApplication() throws -> MSALPublicClientApplication {
        try makeApplication(httpClient: makeHTTPClient())
    }

    func makeApplication(httpClient: (any MSALHTTPClient)?) throws -> MSALPublicClientApplication {
        let clientId = options.signInClientId
        guard let url = URL(string: options.resolvedAuthority), ["https", "http"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else {
            throw CLIError(message: "The authority \"\(options.resolvedAuthority)\" is not a URL; give one such as "
                           + "https://login.microsoftonline.com/<tenant>.", exitCode: CLIExit.usage)
        }
        // The subclass of the URL's kind: a B2C authority the user names is trusted as a known authority.
        let authority: MSALAuthority
        do {
            authority = try MSALAuthority.authority(with: url)
        } catch let error as MSALErrorInfo {
            throw CLIError(message: CLI.oneLine(error.errorDescription) + " Give an authority such as "
                           + "https://login.microsoftonline.com/<tenant>.", exitCode: CLIExit.usage)
        }
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
        configuration.brokerOptions = MSALBrokerOptions(enabledOnLinux: usesBroker)
        configuration.popKeyStore = MSALFilePoPKeyStore(fileURL: Self.popKeyFile)
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// The tool's proof-of-possession key: `$XDG_STATE_HOME/msal/pop-key.pem` (else `~/.local/state/msal/`).
    static var popKeyFile: URL {
        ToolDefaults.stateDirectory(environment: ProcessConfiguration.environment).appendingPathComponent("pop-key.pem")
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
    /// authorities in use (paths made absolute); `throughBroker` when the broker answered.
    func record(_ account: MSALAccount, throughBroker: Bool) throws {
        guard let id = account.identifier else { return }
        try update(.signedIn(homeAccountId: id, entry: entry(for: account, throughBroker: throughBroker)))
    }

    /// Makes `account` the active sign-in (`msal switch`), keeping its record; an account without one (signed in by
    /// another tool sharing the cache) is recorded with the settings in use.
    func recordSwitch(to account: MSALAccount) throws {
        guard let id = account.identifier else { return }
        try update(.switched(homeAccountId: id, unrecorded: entry(for: account, throughBroker: false)))
    }

    /// Forgets the recorded sign-in of `homeAccountId` (signed out, or no longer in its cache); when it was the
    /// active one, the most recently active other sign-in becomes active.
    func forgetRecord(of homeAccountId: String) throws {
        try update(.signedOut(homeAccountId: homeAccountId))
    }

    private func update(_ event: SignInRecords.Event) throws {
        do {
            try SignInRecords.update(ProcessConfiguration.signInsFile, event)
        } catch {
            throw CLIError(message: error.message)
        }
    }

    private func entry(for account: MSALAccount, throughBroker: Bool) -> SignInRecords.Entry {
        func absolute(_ path: String?) -> String? { path.map { URL(fileURLWithPath: HomePath.expand($0)).path } }
        let known = options.resolvedKnownAuthorities
        return SignInRecords.Entry(
            username: account.username, clientId: options.signInClientId, authority: options.resolvedAuthority,
            caFile: absolute(options.resolvedCAFile), graphEndpoint: options.explicitGraphEndpoint,
            cache: absolute(options.resolvedCache), knownAuthorities: known.isEmpty ? nil : known,
            broker: throughBroker ? true : nil)
    }

    /// The active account's home account id: the recorded sign-in's when the settings come from it, else the one
    /// `msal switch` or `msal login` chose for this client id and cache.
    var activeAccountId: String? {
        if let recorded = options.recordedSignIn { return recorded.homeAccountId }
        return activeAccountKey.flatMap { ActiveAccountStore(environment: ProcessConfiguration.environment).active(for: $0) }
    }

    /// The account named by `--account`, else the active account (`msal switch`), else the only signed-in account.
    /// Throws an interaction-required error when there is none.
    func selectAccount(in application: MSALPublicClientApplication) throws -> MSALAccount {
        let accounts = try application.allAccounts()
        if let wanted = options.resolvedAccount {
            if let match = accounts.first(where: { AccountMatch.matches($0, wanted) }) { return match }
            throw MSALErrorInfo(.interactionRequired, description: "No signed-in account \"\(wanted)\" is in the cache.")
        }
        if let recorded = recordedSignInGone(from: accounts) {
            throw MSALErrorInfo(.interactionRequired, description: "The active sign-in"
                                + (recorded.entry.username.map { " (\($0))" } ?? "") + " is no longer in the token cache.")
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

    /// The recorded sign-in these options continue when its account is not among `accounts` (signed out by another
    /// tool, or the cache removed); nil when there is none or its account is there.
    func recordedSignInGone(from accounts: [MSALAccount]) -> (homeAccountId: String, entry: SignInRecords.Entry)? {
        guard let recorded = options.recordedSignIn,
              !accounts.contains(where: { $0.identifier == recorded.homeAccountId }) else { return nil }
        return recorded
    }

    /// A silent token for the selected account.
    func silentToken(_ application: MSALPublicClientApplication, forceRefresh: Bool = false,
                     scheme: MSALAuthenticationSchemePop? = nil) async throws -> MSALResult {
        let account = try selectAccount(in: application)
        let parameters = MSALSilentTokenParameters(scopes: options.resolvedScopes, account: account)
        parameters.forceRefresh = forceRefresh
        if let scheme { parameters.authenticationScheme = scheme }
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
