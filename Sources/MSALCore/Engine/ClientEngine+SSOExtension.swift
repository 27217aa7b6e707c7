import Foundation

/// Microsoft's Enterprise SSO extension on the broker port (Apple platforms): it answers first where an MDM deployed
/// it — interactive and silent tokens, the device's accounts, device information, sign-out — and the library's own
/// flows run where it is absent. Its tokens are checked and stored as the identity platform's are.
extension ClientEngine {
    /// The extension, when the application may use it for `authority` and it is configured on the device.
    func ssoExtension(for authority: MSALAuthority) async -> (any MSALSSOExtensionPerformer)? {
        guard let ssoExtensionPerformer, MSALGlobalConfig.brokerAvailability != .none, settings.credential == nil,
              authority.descriptor.kind == .aad, await ssoExtensionPerformer.canPerform() else { return nil }
        return ssoExtensionPerformer
    }

    /// The keys every operation carries; the broker key from the broker app's store, else this application's own.
    func ssoExtensionBase(_ correlationId: UUID) -> [String: String] {
        let key = (try? brokerApp?.keyStore.brokerKey()) ?? ssoExtensionKey
        return SSOExtensionRequest.base(brokerKey: key, correlationId: correlationId,
                                        appName: Bundle.main.object(forInfoDictionaryKey: "CFBundleName") as? String,
                                        appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String)
    }

    /// Performs `request`, the answer checked; nil when no extension answers.
    func performSSOExtension(_ request: SSOExtensionRequest, _ performer: any MSALSSOExtensionPerformer,
                             webviewParameters: MSALWebviewParameters? = nil, correlationId: UUID) async throws -> [String: String]? {
        do {
            let fields = try await performer.perform(operation: request.operation.rawValue, items: request.items,
                                                     userInterface: request.operation.showsUserInterface,
                                                     webviewParameters: webviewParameters)
            return try SSOExtensionAnswer.checked(fields, request.operation, correlationId: correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            log(correlationId).info("The SSO extension did not answer; using the library's own flow.")
            return nil
        }
    }

    func ssoTokenParameters(authority: MSALAuthority, scopes: [String], claims: String?) -> SSOExtensionRequest.Token {
        var token = SSOExtensionRequest.Token(authority: authority.url.absoluteString, clientId: settings.clientId,
                                              redirectUri: settings.redirectUri, scopes: scopes)
        token.claims = claims
        token.clientCapabilities = settings.clientCapabilities
        token.extraQueryParameters = settings.extraQueryParameters
        token.instanceAware = settings.multipleCloudsSupported
        return token
    }

    /// The extension's tokens as a result (``MSALTokenSource/broker``).
    func ssoExtensionResult(_ fields: [String: String], authority: MSALAuthority, descriptor: AuthorityDescriptor,
                            scopes: [String], knownAccount: MSALAccount?, correlationId: UUID,
                            cache: any TokenCachePort) async throws -> MSALResult {
        let resolved = try await resolve(descriptor, correlationId: correlationId)
        let response = try SSOExtensionAnswer.tokenResponse(fields, now: clock.now(), correlationId: correlationId)
        let redemption = TokenRedemption(
            resolved: resolved, scopes: scopes, correlationId: correlationId, authority: authority,
            knownAccount: knownAccount, knownHomeAccountId: knownAccount?.identifier, requiresIdToken: knownAccount == nil,
            accountSource: "broker")
        let result = try await accept(response, redemption, cache: cache)
        RequestDiagnostics.current?.noteSource(.broker)
        return result
    }

    /// An interactive sign-in through the extension (`login`); nil when none answers.
    func ssoExtensionInteractive(_ request: InteractiveRequest, authority: MSALAuthority) async throws -> MSALResult? {
        guard !request.skipsSSOExtension, let performer = await ssoExtension(for: authority) else { return nil }
        let correlationId = request.correlationId
        var token = ssoTokenParameters(authority: authority, scopes: request.scopes,
                                       claims: ClaimsParameter.build(capabilities: settings.clientCapabilities,
                                                                     claimsRequest: request.claimsRequest))
        token.homeAccountId = request.account?.identifier
        token.username = request.account?.username ?? request.loginHint
        token.prompt = request.prompt.parameterValue
        token.extraConsentScopes = request.extraScopesToConsent
        token.extraQueryParameters.merge(request.extraQueryParameters) { $1 }
        log(correlationId).info("Signing in through the SSO extension.")
        guard let fields = try await performSSOExtension(.token(.login, token, base: ssoExtensionBase(correlationId)),
                                                         performer, webviewParameters: request.webviewParameters,
                                                         correlationId: correlationId) else { return nil }
        return try await ssoExtensionResult(fields, authority: authority, descriptor: authority.descriptor,
                                            scopes: request.scopes + request.extraScopesToConsent, knownAccount: nil,
                                            correlationId: correlationId, cache: cache)
    }

    /// A silent request's token from the extension (`refresh`); nil when none answers.
    func ssoExtensionSilent(_ plan: UserTokenPlan, cache: any TokenCachePort) async throws -> MSALResult? {
        guard !plan.request.skipsSSOExtension, let performer = await ssoExtension(for: plan.authority) else { return nil }
        let request = plan.request
        var token = ssoTokenParameters(authority: MSALAuthority.make(plan.descriptor), scopes: request.scopes,
                                       claims: RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities,
                                                                                requested: request.claims))
        token.homeAccountId = plan.homeAccountId
        token.username = plan.account.username
        token.forceRefresh = request.forceRefresh
        guard let fields = try await performSSOExtension(.token(.refresh, token, base: ssoExtensionBase(request.correlationId)),
                                                         performer, correlationId: request.correlationId) else { return nil }
        return try await ssoExtensionResult(fields, authority: MSALAuthority.make(plan.descriptor), descriptor: plan.descriptor,
                                            scopes: request.scopes, knownAccount: plan.account,
                                            correlationId: request.correlationId, cache: cache)
    }

    /// The accounts the extension holds for this application (none when it is absent).
    func ssoExtensionAccounts(signedInOnly: Bool, correlationId: UUID) async throws -> (accounts: [MSALAccount], device: SSOExtensionDeviceInfo)? {
        guard let performer = await ssoExtension(for: settings.authority),
              let fields = try await performSSOExtension(
                .accounts(clientId: settings.clientId, signedInOnly: signedInOnly, base: ssoExtensionBase(correlationId)),
                performer, correlationId: correlationId) else { return nil }
        let accounts = try SSOExtensionAnswer.accounts(fields, correlationId: correlationId).map {
            MSALAccount(username: $0.username, homeAccountId: $0.homeAccountId, environment: $0.environment,
                        tenantProfiles: nil, claims: nil)
        }
        return (accounts, SSOExtensionAnswer.deviceInfo(fields))
    }

    /// The extension's device information (nil when it is absent).
    func ssoExtensionDeviceInfo(correlationId: UUID) async throws -> SSOExtensionDeviceInfo? {
        guard let performer = await ssoExtension(for: settings.authority),
              let fields = try await performSSOExtension(.deviceInfo(base: ssoExtensionBase(correlationId)), performer,
                                                         correlationId: correlationId) else { return nil }
        return SSOExtensionAnswer.deviceInfo(fields)
    }

    /// Signs `account` out of the extension too (with `wipeAccount`, out of every app of the device).
    func ssoExtensionSignOut(_ account: MSALAccount, wipeAccount: Bool, wipeCacheForAllAccounts: Bool,
                             correlationId: UUID) async throws {
        guard let performer = await ssoExtension(for: settings.authority) else { return }
        let request = SSOExtensionRequest.signOut(
            homeAccountId: account.identifier, username: account.username, clientId: settings.clientId,
            authority: settings.authority.url.absoluteString, redirectUri: settings.redirectUri, wipeAccount: wipeAccount,
            wipeCacheForAllAccounts: wipeCacheForAllAccounts, base: ssoExtensionBase(correlationId))
        _ = try await performSSOExtension(request, performer, correlationId: correlationId)
    }
}
