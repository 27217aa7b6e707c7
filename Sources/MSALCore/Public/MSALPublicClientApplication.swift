public import Foundation
import Dispatch

// The completion blocks are not `@Sendable`, as MSAL for iOS/macOS's blocks are not: a block written in a view
// controller is isolated to the main actor and may touch the view. MSAL calls it on the parameters'
// `completionBlockQueue`, else on the main queue on Apple platforms (so a main-actor block runs on the main actor),
// else on a global queue (Linux, where programs often run no main loop).

/// Completion of a token request: a result, or an error.
public typealias MSALCompletionBlock = (MSALResult?, (any Error)?) -> Void
/// Completion of ``MSALPublicClientApplication/getCurrentAccount(with:completionBlock:)``: the current account,
/// the previous one, or an error.
public typealias MSALCurrentAccountCompletionBlock = (MSALAccount?, MSALAccount?, (any Error)?) -> Void
/// Completion of sign-out: whether it succeeded, or an error.
public typealias MSALSignoutCompletionBlock = (Bool, (any Error)?) -> Void
/// Completion of ``MSALPublicClientApplication/getDeviceInformation(with:completionBlock:)``.
public typealias MSALDeviceInformationCompletionBlock = (MSALDeviceInformation?, (any Error)?) -> Void
/// Completion of an account enumeration.
public typealias MSALAccountsCompletionBlock = ([MSALAccount]?, (any Error)?) -> Void

/// The entry point of MSAL: signs users in and gets tokens for a public client application (a desktop, mobile
/// or command-line app).
///
/// ```swift
/// let app = try MSALPublicClientApplication(configuration: config)
/// let interactive = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
/// let result = try await app.acquireToken(with: interactive)
/// // later, with no user interaction:
/// let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
/// let refreshed = try await app.acquireTokenSilent(with: silent)
/// ```
///
/// Every completion-block method has an `async throws` form. The application object is safe to use from any
/// task or thread; create one per client id and keep it.
///
/// Not final, as in MSAL for iOS/macOS: ``MSALNativeAuthPublicClientApplication`` is one (it adds native
/// authentication and keeps every method here for the browser fallback and silent tokens). Its stored state is
/// immutable or locked, hence `@unchecked Sendable`.
public class MSALPublicClientApplication: @unchecked Sendable {
    let engine: ClientEngine
    private let configurationCopy: MSALPublicClientApplicationConfig
    /// The application's own account storages (``MSALCacheConfig/externalAccountProviders``); nil when there are none.
    let externalAccounts: ExternalAccounts?

    /// Creates an application. Throws ``MSALInternalError/internalErrorInvalidParameter`` for an empty or
    /// malformed client id, ``MSALInternalError/internalErrorInvalidRedirectURI`` for a redirect URI that cannot
    /// be used, and ``MSALInternalError/internalErrorFailedAuthorityValidation`` for a B2C authority that is not in
    /// ``MSALPublicClientApplicationConfig/knownAuthorities``.
    ///
    /// `platform` supplies what the configuration leaves unset (transport, user agent, storage). The `MSAL`
    /// module's `init(configuration:)` passes the platform's own; this initializer is for apps that use
    /// `MSALCore` alone or bring every piece themselves.
    public convenience init(configuration: MSALPublicClientApplicationConfig, platform: MSALPlatformServices) throws {
        try self.init(configuration: configuration, platform: platform, sessions: .process)
    }

    /// Creates an application whose interactive sign-ins are registered in `sessions`.
    init(configuration: MSALPublicClientApplicationConfig, platform: MSALPlatformServices,
         sessions: InteractiveSessions) throws {
        let snapshot = configuration.snapshot()
        var settings = try EngineSettings(snapshot)
        if snapshot.popKeyStore == nil, let keys = platform.popKeyStore { settings.popKeyStore = keys }
        settings.wipePartnerCaches = platform.wipePartnerCaches
        let cacheConfig = snapshot.cacheConfig
        if let provider = cacheConfig.serializedADALCache {
            settings.legacyCache = LegacyTokenCache(store: provider, forIOS: false, writesRefreshTokens: true)
        } else if cacheConfig.storage == nil, let legacy = platform.legacyTokenCache {
            settings.legacyCache = legacy(cacheConfig.keychainSharingGroup, cacheConfig.writesLegacyADALRefreshTokens)
        }
        let storage = snapshot.cacheConfig.storage ?? platform.cacheStorage()
        let store = TokenCacheStore(storage: storage, log: settings.log)
        engine = ClientEngine(settings: settings, http: snapshot.httpClient ?? platform.httpClient,
                              clock: snapshot.clock ?? MSALSystemClock(), cache: DocumentCachePort(store: store),
                              defaultAuthenticator: platform.webAuthenticator,
                              embeddedAuthenticator: platform.embeddedWebAuthenticator, sessions: sessions,
                              broker: snapshot.brokerOptions.transport(platform: platform.brokerTransport),
                              brokerApp: snapshot.brokerOptions.brokerApp ?? platform.brokerApp,
                              ssoExtension: snapshot.brokerOptions.ssoExtension ?? platform.ssoExtension,
                              workplaceJoin: snapshot.brokerOptions.workplaceJoin ?? platform.workplaceJoin)
        configurationCopy = snapshot
        let providers = snapshot.cacheConfig.externalAccountProviders
        externalAccounts = providers.isEmpty ? nil : ExternalAccounts(providers: providers)
    }

    /// `result` after the external account providers were told of its account.
    func updatingExternalAccounts(_ result: MSALResult) -> MSALResult {
        externalAccounts?.update(with: result, log: engine.settings.log)
        return result
    }

    /// `accounts` with the accounts of ADAL's legacy cache and of the external account providers that match
    /// `parameters` (the legacy cache's only when the unified cache does not hold them).
    func mergingExternalAccounts(_ accounts: [MSALAccount], _ parameters: MSALAccountEnumerationParameters) throws -> [MSALAccount] {
        var accounts = accounts
        if engine.settings.legacyCache != nil {
            accounts += engine.legacyAccounts(excluding: try engine.allAccounts(onlySignedIn: false)).filter(parameters.matches)
        }
        guard let externalAccounts else { return accounts }
        return try externalAccounts.merged(accounts, parameters, defaultEnvironment: engine.settings.authority.descriptor.host)
    }

    /// A copy of the configuration the application was created with.
    public var configuration: MSALPublicClientApplicationConfig { configurationCopy.snapshot() }

    /// The library version.
    public class var sdkVersion: String? { ClientHeaders.version }

    /// Whether a broker app this library can use is installed: Microsoft Authenticator answering both `msauthv2` and
    /// `msauthv3` (the schemes of its requests and of its nonce support), as MSAL for iOS/macOS checks. False when
    /// ``MSALGlobalConfig/brokerAvailability`` is `.none`, in an app extension, on macOS and on Linux (no broker
    /// app there; the Linux broker and the SSO extension are not apps). On iOS it asks the shared application, on the
    /// main thread.
    public var isCompatibleAADBrokerAvailable: Bool {
        guard MSALGlobalConfig.brokerAvailability != .none, let app = engine.brokerApp else { return false }
        return app.opener.canOpenBrokerImmediately(scheme: AuthenticatorBrokerRequest.scheme)
            && app.opener.canOpenBrokerImmediately(scheme: AuthenticatorBrokerRequest.nonceScheme)
    }

    /// Hands a URL the app was opened with to MSAL: Microsoft Authenticator's answer to a brokered sign-in, which
    /// completes the pending ``acquireToken(with:)`` with the broker's tokens. Returns false for a URL that is not
    /// such an answer (the app handles it), or that comes from another app than the broker (`sourceApplication`, the
    /// `UIApplication.OpenURLOptionsKey.sourceApplication` of `application(_:open:options:)` or the
    /// `UIOpenURLContext`'s `options.sourceApplication`). Web sign-ins receive their answers through the web
    /// authenticator and need nothing here.
    @discardableResult
    public class func handleMSALResponse(_ response: URL, sourceApplication: String?) -> Bool {
        AuthenticatorSessions.process.handle(response, sourceApplication: sourceApplication)
    }

    /// Cancels the interactive sign-ins in progress in this process (those of every application), if any. Returns
    /// whether one was cancelled; each ends with ``MSALError/userCanceled``.
    @discardableResult
    public class func cancelCurrentWebAuthSession() -> Bool {
        InteractiveSessions.process.cancelAll()
    }

    // MARK: Tokens

    /// Gets a token interactively: shows the sign-in pages, then redeems the authorization code.
    public func acquireToken(with parameters: MSALInteractiveTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireToken(with: parameters)
        }
    }

    /// Gets a token interactively.
    public func acquireToken(with parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        var extraQueryParameters = parameters.extraQueryParameters ?? [:]
        if parameters.preferredAuthMethod == .QRPIN { extraQueryParameters["pc"] = "18" }
        var request = InteractiveRequest(
            scopes: parameters.scopes, extraScopesToConsent: parameters.extraScopesToConsent ?? [],
            account: parameters.account, authority: parameters.authority, prompt: parameters.promptType,
            loginHint: parameters.loginHint, domainHint: parameters.domainHint, claimsRequest: parameters.claimsRequest,
            extraQueryParameters: extraQueryParameters, correlationId: parameters.correlationId ?? CorrelationID.next(),
            authenticator: parameters.webviewParameters.webAuthenticator,
            prefersEphemeralSession: parameters.webviewParameters.prefersEphemeralWebBrowserSession,
            webviewParameters: parameters.webviewParameters)
        request.xpcMode = parameters.msalXpcMode
        request.popScheme = parameters.popScheme
        let started = request
        return updatingExternalAccounts(try await engine.reporting(.interactive, correlationId: started.correlationId,
                                                                   authority: started.authority) {
            try await ErrorBoundary.run(.interactive, correlationId: started.correlationId) { [engine] in
                try await engine.sessions.run { [engine] in
                    try await engine.acquireTokenInteractive(started)
                }
            }
        })
    }

    /// Gets a token without user interaction: from the cache when a valid one is there (no network at all), else
    /// by redeeming the account's refresh token. Fails with ``MSALError/interactionRequired`` when the user must
    /// sign in again.
    public final func acquireTokenSilent(with parameters: MSALSilentTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenSilent(with: parameters)
        }
    }

    /// Gets a token without user interaction. (`final`: the silent hot path is called directly, never through the
    /// class's table, though the class is not final.)
    public final func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        // The hot path: a remembered cache hit is answered here, with no task, no await and no collector.
        if let hit = parameters.rememberedHit(engine) {
            return externalAccounts == nil ? hit : updatingExternalAccounts(hit)
        }
        let request = parameters.silentRequest()
        let result = try await engine.reporting(.silent, correlationId: request.correlationId, authority: request.authority,
                                                measure: false) {
            try await ErrorBoundary.run(.silent, correlationId: request.correlationId) { [engine] in
                try await engine.acquireTokenSilentMeasured(request)
            }
        }
        return externalAccounts == nil ? result : updatingExternalAccounts(result)
    }

    // MARK: Accounts

    /// Every account that can get tokens for this application from the cache.
    public func allAccounts() throws -> [MSALAccount] {
        try accountCall { try mergingExternalAccounts(try engine.allAccounts(), MSALAccountEnumerationParameters(identifier: nil)) }
    }

    /// The account with home account id `identifier`; throws ``MSALError/interactionRequired`` when it is not
    /// in the cache.
    public func account(forIdentifier identifier: String) throws -> MSALAccount {
        try accountCall {
            let parameters = MSALAccountEnumerationParameters(identifier: identifier)
            guard let account = try mergingExternalAccounts(try engine.accounts(matching: parameters), parameters).first else {
                throw MSALErrorInfo.interactionRequired("No signed-in account with this identifier is in the cache.",
                                                        internalCode: .internalErrorAccountRequired)
            }
            return account
        }
    }

    /// The account with user name `username` (case-insensitive); throws ``MSALError/interactionRequired`` when
    /// it is not in the cache.
    public func account(forUsername username: String) throws -> MSALAccount {
        try accountCall {
            let parameters = MSALAccountEnumerationParameters(identifier: nil, username: username)
            guard let account = try mergingExternalAccounts(try engine.accounts(matching: parameters), parameters).first else {
                throw MSALErrorInfo.interactionRequired("No signed-in account with this user name is in the cache.",
                                                        internalCode: .internalErrorAccountRequired)
            }
            return account
        }
    }

    /// The accounts matching `parameters`.
    public func accounts(for parameters: MSALAccountEnumerationParameters) throws -> [MSALAccount] {
        try accountCall { try mergingExternalAccounts(try engine.accounts(matching: parameters), parameters) }
    }

    /// The accounts matching `parameters`: those of the cache and, when the application uses the device's identity
    /// broker (``MSALBrokerOptions``), those the broker holds for it.
    public func accountsFromDevice(for parameters: MSALAccountEnumerationParameters,
                                   completionBlock: @escaping MSALAccountsCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.accountsFromDevice(for: parameters)
        }
    }

    /// The accounts matching `parameters` (the `async` form of ``accountsFromDevice(for:completionBlock:)``).
    public func accountsFromDevice(for parameters: MSALAccountEnumerationParameters) async throws -> [MSALAccount] {
        let cached = try accounts(for: parameters)
        let correlationId = CorrelationID.next()
        let brokered = try await ErrorBoundary.run(.accounts, correlationId: correlationId) { [engine] in
            try await engine.brokeredAccounts(signedInOnly: false, correlationId: correlationId)?.accounts ?? []
        }
        let known = Set(cached.compactMap { $0.identifier?.lowercased() })
        return cached + brokered.filter { account in
            guard let id = account.identifier?.lowercased(), !known.contains(id) else { return false }
            return parameters.matches(account)
        }
    }

    /// Removes the account's tokens for this application from the cache. Other applications' tokens stay.
    public func remove(_ account: MSALAccount) throws {
        try accountCall {
            try engine.remove(account)
            engine.removeLegacyItems(account)
            try externalAccounts?.remove(account, wipeAccount: false)
        }
    }

    /// Runs a cache-only account call through the error boundary, with a correlation id of its own.
    func accountCall<T>(_ body: () throws -> T) throws(MSALErrorInfo) -> T {
        try ErrorBoundary.runSync(.accounts, correlationId: CorrelationID.next(), body)
    }

    /// The queue a completion block runs on: the parameters' `completionBlockQueue`, else the main queue on Apple
    /// platforms (a block written in a view controller is isolated to the main actor), else a global queue.
    static func completionQueue(_ parameters: MSALParameters?) -> DispatchQueue {
        if let queue = parameters?.completionBlockQueue { return queue }
        #if canImport(Darwin)
        return .main
        #else
        return .global()
        #endif
    }
}
