import Foundation

/// The broker port of the acquisition driver: when the device's identity broker answers instead of the library's own
/// flows, and how its answers become results. A broker's token is checked and stored as the identity provider's
/// are (id token signature and subject, the account asked for), without a refresh token: the broker keeps the
/// device's session itself.
extension ClientEngine {
    /// The redirect URI Microsoft's broker clients name in token requests.
    static let brokerRedirectUri = "https://login.microsoftonline.com/common/oauth2/nativeclient"

    /// The broker for a request to `authority`, when the application uses one and it may answer: public clients
    /// with a Microsoft Entra authority only (not B2C, ADFS or External ID, as Microsoft's clients decide).
    func broker(for authority: MSALAuthority) -> BrokerClient? {
        guard let broker, settings.credential == nil, authority.descriptor.kind == .aad,
              authority.descriptor.tenant.lowercased() != "adfs", broker.mayBeAvailable else { return nil }
        return broker
    }

    /// The broker's name for `account`.
    func brokerAccount(_ account: MSALAccount) -> BrokerAccount? {
        guard let identifier = account.identifier else { return nil }
        let id = MSALAccountId(identifier: identifier)
        return BrokerAccount(homeAccountId: identifier, environment: account.environment,
                             realm: id.tenantId ?? "", localAccountId: id.objectId ?? "", username: account.username ?? "")
    }

    func brokerParameters(_ type: BrokerRequest.AuthorizationType, authority: AuthorityDescriptor, scopes: [String],
                          claims: String?, account: BrokerAccount?, username: String? = nil,
                          prompt: String? = nil) -> BrokerRequest.AuthParameters {
        var extra = settings.extraQueryParameters
        extra["msal_client_sku"] = ClientHeaders.sku
        extra["msal_client_ver"] = ClientHeaders.version
        return BrokerRequest.AuthParameters(authorizationType: type, authority: authority.urlString, clientId: settings.clientId,
                                            redirectUri: Self.brokerRedirectUri, scopes: scopes, claims: claims,
                                            account: account, username: username, prompt: prompt,
                                            additionalParameters: extra)
    }

    /// Checks and stores a broker's token as a token response of `authority`, and returns its result
    /// (``MSALTokenSource/broker``).
    func brokerResult(_ token: BrokerTokenResponse, authority: MSALAuthority, descriptor: AuthorityDescriptor,
                      scopes: [String], knownAccount: MSALAccount?, correlationId: UUID,
                      cache: any TokenCachePort) async throws -> MSALResult {
        let resolved = try await resolve(descriptor, correlationId: correlationId)
        let now = clock.now()
        let response = TokenResponse(
            accessToken: token.accessToken, tokenType: token.accessTokenType == 1 ? "pop" : "Bearer",
            expiresIn: max(token.expiresOn.timeIntervalSince(now), 0),
            extExpiresIn: token.extendedExpiresOn.map { max($0.timeIntervalSince(now), 0) },
            scopes: token.grantedScopes.isEmpty ? nil : token.grantedScopes, idToken: token.idToken,
            clientInfo: token.clientInfo)
        let redemption = TokenRedemption(
            resolved: resolved, scopes: scopes, correlationId: correlationId, authority: authority,
            knownAccount: knownAccount, knownHomeAccountId: knownAccount?.identifier, requiresIdToken: true,
            accountSource: "broker")
        let result = try await accept(response, redemption, cache: cache)
        RequestDiagnostics.current?.noteSource(.broker)
        log(correlationId).info("The identity broker gave the token.")
        return result
    }

    /// An interactive sign-in in the broker's own window; nil when no broker answers (the caller runs its own flow).
    func brokerInteractive(_ request: InteractiveRequest, authority: MSALAuthority) async throws -> MSALResult? {
        guard let broker = broker(for: authority) else { return nil }
        let correlationId = request.correlationId
        let scopes = request.scopes + request.extraScopesToConsent
        // The Linux broker takes `select_account`, `login` and `consent` (not `create`).
        let prompt = request.prompt == .create ? nil : request.prompt.parameterValue
        let parameters = brokerParameters(
            .interactive, authority: authority.descriptor, scopes: scopes,
            claims: ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: request.claimsRequest),
            account: request.account.flatMap(brokerAccount), username: request.loginHint ?? request.account?.username,
            prompt: prompt)
        log(correlationId).info("Signing in through the identity broker.")
        let token: BrokerTokenResponse
        do {
            token = try await broker.interactiveToken(parameters, correlationId: correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            return nil
        }
        return try await brokerResult(token, authority: authority, descriptor: authority.descriptor, scopes: scopes,
                                      knownAccount: nil, correlationId: correlationId, cache: cache)
    }

    /// A silent request's token from the broker; nil when no broker answers, or it does not hold the account (the
    /// caller redeems the account's refresh token instead).
    func brokerSilent(_ plan: UserTokenPlan, cache: any TokenCachePort) async throws -> MSALResult? {
        guard let broker = broker(for: plan.authority), let account = brokerAccount(plan.account) else { return nil }
        let request = plan.request
        let parameters = brokerParameters(
            .cachedRefreshToken, authority: plan.descriptor, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: request.claims),
            account: account)
        let token: BrokerTokenResponse
        do {
            token = try await broker.silentToken(parameters, correlationId: request.correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable
            || error.internalCode == .internalErrorAccountRequired {
            if error.internalCode == .internalErrorAccountRequired {
                log(request.correlationId).info("The identity broker does not hold this account; using its refresh token.")
            }
            return nil
        }
        return try await brokerResult(token, authority: MSALAuthority.make(plan.descriptor), descriptor: plan.descriptor,
                                      scopes: request.scopes, knownAccount: plan.account,
                                      correlationId: request.correlationId, cache: cache)
    }

    /// Signs `account` out of the broker too (errors are logged: the local sign-out stands).
    func brokerSignOut(_ account: MSALAccount, correlationId: UUID) async {
        guard let broker = broker(for: settings.authority), let brokerAccount = brokerAccount(account) else { return }
        let parameters = brokerParameters(.signOutSilent, authority: settings.authority.descriptor, scopes: [],
                                          claims: nil, account: brokerAccount)
        do {
            _ = try await broker.signOut(parameters, correlationId: correlationId)
        } catch {
            log(correlationId).info("The identity broker did not sign the account out: \((error as? MSALErrorInfo)?.errorDescription ?? "failed").")
        }
    }

    /// The accounts the broker holds for this application, as accounts (none when no broker answers).
    func brokerAccounts(correlationId: UUID) async throws -> [MSALAccount] {
        guard let broker = broker(for: settings.authority) else { return [] }
        do {
            return try await broker.accounts(clientId: settings.clientId, redirectUri: settings.clientId,
                                             correlationId: correlationId).map {
                MSALAccount(username: $0.username, homeAccountId: $0.homeAccountId,
                            environment: $0.environment.isEmpty ? settings.authority.descriptor.host : $0.environment,
                            tenantProfiles: nil, claims: nil)
            }
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            return []
        }
    }
}
