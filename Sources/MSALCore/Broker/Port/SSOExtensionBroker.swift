import Foundation

/// Microsoft's Enterprise SSO extension on the broker port (Apple platforms): it answers first where an MDM deployed
/// it — interactive and silent tokens, the device's accounts, device information, sign-out — and the library's own
/// flows run where it is absent.
struct SSOExtensionBroker: BrokerPort {
    let performer: any MSALSSOExtensionPerformer
    /// The broker key of requests when the application keeps none in a broker key store.
    let ownKey: Data
    /// The broker app's key store, whose key the extension's requests carry when there is one.
    let keyStore: (any MSALBrokerKeyStore)?

    var name: String { "SSO extension" }

    /// Where the app may use the Apple brokers (``ClientEngine/appleBrokersMayAnswer(_:)``) and an extension is
    /// configured on the device (`canPerformAuthorization`, `MSIDSSOExtensionSilentTokenRequestController.m:47-50`). ``MSALTokenParameters/msalXpcMode`` does not turn it off:
    /// MSAL for iOS/macOS treats every mode but its development-only `.primary` as the extension first, and
    /// `.primary` as `.disabled` in release builds (`MSALPublicClientApplication.m`, `msalXpcMode` read through
    /// `MSIDXpcProviderCache`; `MSALDefinitions.h`, `MSALXpcMode`); this library has no XPC service to reach.
    func isEligible(_ request: BrokerEligibility, engine: ClientEngine) async -> Bool {
        guard engine.appleBrokersMayAnswer(request) else { return false }
        return await performer.canPerform()
    }

    /// The keys every operation carries.
    func base(_ correlationId: UUID) -> [String: String] {
        let key = (try? keyStore?.brokerKey()) ?? ownKey
        return SSOExtensionRequest.base(brokerKey: key, correlationId: correlationId,
                                        appName: Bundle.main.object(forInfoDictionaryKey: "CFBundleName") as? String,
                                        appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String)
    }

    /// Performs `request`, the answer checked; nil when no extension answers.
    func perform(_ request: SSOExtensionRequest, webviewParameters: MSALWebviewParameters? = nil, engine: ClientEngine,
                 correlationId: UUID) async throws -> [String: String]? {
        do {
            let fields = try await performer.perform(operation: request.operation.rawValue, items: request.items,
                                                     userInterface: request.operation.showsUserInterface,
                                                     webviewParameters: webviewParameters)
            return try SSOExtensionAnswer.checked(fields, request.operation, correlationId: correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            engine.log(correlationId).info("The SSO extension did not answer; using the library's own flow.")
            return nil
        }
    }

    func tokenParameters(authority: MSALAuthority, scopes: [String], claims: String?, binding: PoPBinding?,
                         engine: ClientEngine) -> SSOExtensionRequest.Token {
        let settings = engine.settings
        var token = SSOExtensionRequest.Token(authority: authority.url.absoluteString, clientId: settings.clientId,
                                              redirectUri: settings.redirectUri, scopes: scopes)
        token.claims = claims
        token.clientCapabilities = settings.clientCapabilities
        token.extraQueryParameters = settings.extraQueryParameters
        token.instanceAware = settings.multipleCloudsSupported
        if let binding {
            token.tokenType = AuthenticatorBroker.popTokenType
            token.requestConfirmation = binding.key.requestConfirmation
        }
        return token
    }

    /// `login`.
    func interactive(_ request: InteractiveRequest, authority: MSALAuthority, engine: ClientEngine) async throws -> BrokeredToken? {
        let correlationId = request.correlationId
        var token = tokenParameters(authority: authority, scopes: request.scopes,
                                    claims: ClaimsParameter.build(capabilities: engine.settings.clientCapabilities,
                                                                  claimsRequest: request.claimsRequest),
                                    binding: request.proofOfPossession, engine: engine)
        token.homeAccountId = request.account?.identifier
        token.username = request.account?.username ?? request.loginHint
        token.prompt = request.prompt.parameterValue
        token.extraConsentScopes = request.extraScopesToConsent
        token.extraQueryParameters.merge(request.extraQueryParameters) { $1 }
        engine.log(correlationId).info("Signing in through the SSO extension.")
        guard let fields = try await perform(.token(.login, token, base: base(correlationId)),
                                             webviewParameters: request.webviewParameters, engine: engine,
                                             correlationId: correlationId) else { return nil }
        var brokered = BrokeredToken(response: try SSOExtensionAnswer.tokenResponse(fields, now: engine.clock.now(),
                                                                                   correlationId: correlationId),
                                     authority: authority, descriptor: authority.descriptor,
                                     scopes: request.scopes + request.extraScopesToConsent, account: request.account)
        brokered.proofOfPossession = request.proofOfPossession.map { .applicationKey($0) }
        return brokered
    }

    /// `refresh`.
    func silent(_ plan: UserTokenPlan, engine: ClientEngine) async throws -> BrokeredToken? {
        let request = plan.request
        let authority = MSALAuthority.make(plan.descriptor)
        var token = tokenParameters(authority: authority, scopes: request.scopes,
                                    claims: RefreshTokenGrantRequest.claims(capabilities: engine.settings.clientCapabilities,
                                                                             requested: request.claims),
                                    binding: plan.proofOfPossession, engine: engine)
        token.homeAccountId = plan.homeAccountId
        token.username = plan.account.username
        token.forceRefresh = request.forceRefresh
        guard let fields = try await perform(.token(.refresh, token, base: base(request.correlationId)), engine: engine,
                                             correlationId: request.correlationId) else { return nil }
        var brokered = BrokeredToken(response: try SSOExtensionAnswer.tokenResponse(fields, now: engine.clock.now(),
                                                                                   correlationId: request.correlationId),
                                     authority: authority, descriptor: plan.descriptor, scopes: request.scopes,
                                     account: plan.account, requiresIdToken: false)
        brokered.proofOfPossession = plan.proofOfPossession.map { .applicationKey($0) }
        return brokered
    }

    /// As MSAL for iOS/macOS (`MSIDSSOExtensionSilentTokenRequestController`, `allowUsingLocalCachedRtWhenSsoExtFailed`):
    /// the account's own refresh token when the application allows it, unless the user cancelled.
    func allowsOwnFlow(after error: MSALErrorInfo, request: SilentRequest, eligibility: BrokerEligibility) -> Bool {
        request.allowLocalRefreshToken && error.code != .userCanceled
    }

    func accounts(signedInOnly: Bool, engine: ClientEngine, correlationId: UUID) async throws -> BrokerAccountList? {
        guard let fields = try await perform(
            .accounts(clientId: engine.settings.clientId, signedInOnly: signedInOnly, base: base(correlationId)),
            engine: engine, correlationId: correlationId) else { return nil }
        let accounts = try SSOExtensionAnswer.accounts(fields, correlationId: correlationId).map {
            MSALAccount(username: $0.username, homeAccountId: $0.homeAccountId, environment: $0.environment,
                        tenantProfiles: nil, claims: nil, isSSOAccount: $0.isSSOAccount)
        }
        return BrokerAccountList(accounts: accounts, device: SSOExtensionAnswer.deviceInfo(fields))
    }

    func deviceInformation(engine: ClientEngine, correlationId: UUID) async throws -> SSOExtensionDeviceInfo? {
        guard let fields = try await perform(.deviceInfo(base: base(correlationId)), engine: engine,
                                             correlationId: correlationId) else { return nil }
        return SSOExtensionAnswer.deviceInfo(fields)
    }

    /// `signout_account_operation` (with `wipeAccount`, out of every app of the device).
    func signOut(_ account: MSALAccount, _ options: BrokerSignOutOptions, engine: ClientEngine, correlationId: UUID) async throws {
        let settings = engine.settings
        let request = SSOExtensionRequest.signOut(
            homeAccountId: account.identifier, username: account.username, clientId: settings.clientId,
            authority: settings.authority.url.absoluteString, redirectUri: settings.redirectUri,
            wipeAccount: options.wipeAccount, wipeCacheForAllAccounts: options.wipeCacheForAllAccounts,
            base: base(correlationId))
        _ = try await perform(request, engine: engine, correlationId: correlationId)
    }
}
