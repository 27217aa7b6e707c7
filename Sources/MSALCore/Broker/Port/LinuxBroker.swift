import Foundation

/// The Linux identity broker (`com.microsoft.identity.broker1` on the session bus) on the broker port. It holds the
/// device's session itself: its tokens come without a refresh token.
struct LinuxBroker: BrokerPort {
    let client: BrokerClient

    var name: String { "identity broker" }

    /// The redirect URI Microsoft's broker clients name in token requests.
    static let redirectUri = "https://login.microsoftonline.com/common/oauth2/nativeclient"

    /// Not while the broker was found missing within the last minute. A silent request goes to the broker only for
    /// an account the broker signed in (`account_source` `"broker"`), or one whose source is unknown (written by
    /// another SDK or an older version), as MSAL for Python decides (`msal/application.py`,
    /// `_acquire_token_silent_from_cache_and_possibly_refresh_it`: `account.get("account_source") in
    /// (_GRANT_TYPE_BROKER, None)`): an account signed in with the browser or a device code keeps its refresh token.
    func isEligible(_ request: BrokerEligibility, engine: ClientEngine) async -> Bool {
        guard client.mayBeAvailable else { return false }
        if request.operation == .silent {
            return request.accountSource == nil || request.accountSource == ClientEngine.brokerAccountSource
        }
        return true
    }

    func interactive(_ request: InteractiveRequest, authority: MSALAuthority, engine: ClientEngine) async throws -> BrokeredToken? {
        let scopes = request.scopes + request.extraScopesToConsent
        // The Linux broker takes `select_account`, `login` and `consent` (not `create`).
        let prompt = request.prompt == .create ? nil : request.prompt.parameterValue
        let parameters = Self.parameters(
            .interactive, engine: engine, authority: authority.descriptor, scopes: scopes,
            claims: ClaimsParameter.build(capabilities: engine.settings.clientCapabilities, claimsRequest: request.claimsRequest),
            account: request.account.flatMap(Self.account), username: request.loginHint ?? request.account?.username,
            prompt: prompt, popParams: Self.popParameters(request.proofOfPossession, homeAccountId: request.account?.identifier))
        engine.log(request.correlationId).info("Signing in through the identity broker.")
        let token: BrokerTokenResponse
        do {
            token = try await client.interactiveToken(parameters, correlationId: request.correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            return nil
        }
        var brokered = BrokeredToken(response: Self.response(token, now: engine.clock.now()), authority: authority,
                                     descriptor: authority.descriptor, scopes: scopes, account: request.account)
        brokered.proofOfPossession = try await binding(of: token, request.proofOfPossession, parameters: parameters,
                                                       engine: engine, correlationId: request.correlationId)
        return brokered
    }

    func silent(_ plan: UserTokenPlan, engine: ClientEngine) async throws -> BrokeredToken? {
        guard let account = Self.account(plan.account) else { return nil }
        let request = plan.request
        let parameters = Self.parameters(
            .cachedRefreshToken, engine: engine, authority: plan.descriptor, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: engine.settings.clientCapabilities, requested: request.claims),
            account: account, popParams: Self.popParameters(plan.proofOfPossession, homeAccountId: account.homeAccountId))
        let token: BrokerTokenResponse
        do {
            token = try await client.silentToken(parameters, correlationId: request.correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable
            || error.internalCode == .internalErrorAccountRequired {
            if error.internalCode == .internalErrorAccountRequired {
                engine.log(request.correlationId).info("The identity broker does not hold this account; using its refresh token.")
            }
            return nil
        }
        var brokered = BrokeredToken(response: Self.response(token, now: engine.clock.now()),
                                     authority: MSALAuthority.make(plan.descriptor), descriptor: plan.descriptor,
                                     scopes: request.scopes, account: plan.account, requiresIdToken: false)
        brokered.proofOfPossession = try await binding(of: token, plan.proofOfPossession, parameters: parameters,
                                                       engine: engine, correlationId: request.correlationId)
        return brokered
    }

    /// Whether `token` is a signed HTTP request (its claims carry the token `at` and the signing key `cnf.jwk`) rather
    /// than an access token, and a compact JWS that can follow `PoP ` in a header.
    static func isSignedRequest(_ token: String) -> Bool {
        guard BrokerAnswer.compactJWS(token) != nil, let claims = (try? IdToken(raw: token))?.claims else { return false }
        return claims["at"]?.stringValue != nil && claims["cnf"]?.objectValue?["jwk"]?.objectValue?["n"]?.stringValue != nil
    }

    /// A proof-of-possession request's `popParams`: the HTTP request the token is for, and the application's key id.
    static func popParameters(_ binding: PoPBinding?, homeAccountId: String?) -> BrokerRequest.PoPParameters? {
        guard let binding else { return nil }
        let url = binding.scheme.requestUrl
        let host = (url.host ?? "").lowercased()
        return BrokerRequest.PoPParameters(
            httpMethod: MSALParameterStringForHttpMethod(binding.scheme.httpMethod),
            uriHost: url.port.map { "\(host):\($0)" } ?? host, uriPath: url.path,
            nonce: binding.scheme.nonce.flatMap { $0.isEmpty ? nil : $0 }, homeAccountId: homeAccountId,
            kid: binding.key.keyId)
    }

    /// How the broker bound a proof-of-possession answer: to its own key when it signed the request itself — in
    /// `signedHttpRequest` (msalruntime's broker-side writer), or as the `accessToken` of a PoP answer, which is how
    /// Microsoft's client reads it (msalruntime's `BrokerTokenResponseFromJson` reads no `signedHttpRequest` and answers
    /// `pop <accessToken>` as the authorization header; MSAL for Python's `msal/broker.py`, `_convert_result`: "It
    /// returns 'pop SignedHttpRequest'") — or when it names a key thumbprint other than the application's (the signed
    /// request then asked for with `generateSignedHttpRequest`); else to the application's key (a broker that bound the
    /// token to `kid`, as `req_cnf`). A bearer answer to a proof-of-possession request is refused by the accept step.
    func binding(of token: BrokerTokenResponse, _ binding: PoPBinding?, parameters: BrokerRequest.AuthParameters,
                 engine: ClientEngine, correlationId: UUID) async throws -> BrokeredPoP? {
        guard let binding, var popParams = parameters.popParams else { return nil }
        if let signed = token.signedHttpRequest { return .brokerKey(BrokerKeyBinding(signedRequest: signed)) }
        if token.accessTokenType == 1, Self.isSignedRequest(token.accessToken) {
            return .brokerKey(BrokerKeyBinding(signedRequest: token.accessToken))
        }
        guard token.accessTokenType == 1, let thumbprint = token.popKeyThumbprint, thumbprint != binding.key.keyId else {
            return .applicationKey(binding)
        }
        popParams.homeAccountId = token.account.homeAccountId
        engine.log(correlationId).info("The identity broker bound the token to its own key; asking it to sign the request.")
        let signed = try await client.signedHTTPRequest(clientId: engine.settings.clientId, popParams: popParams,
                                                        correlationId: correlationId)
        return .brokerKey(BrokerKeyBinding(signedRequest: signed))
    }

    /// The accounts the broker holds for the client (not asked for the account signed in on a shared device: the Linux
    /// broker has no shared device mode).
    /// As MSAL for Python (`msal/application.py`, the broker branch of the silent flow): a broker error ends the
    /// request for an account the broker signed in; for an account of unknown source, the refresh token is tried
    /// (a cancellation stands).
    func allowsOwnFlow(after error: MSALErrorInfo, request: SilentRequest, eligibility: BrokerEligibility) -> Bool {
        eligibility.accountSource == nil && error.code != .userCanceled
    }

    func accounts(signedInOnly: Bool, engine: ClientEngine, correlationId: UUID) async throws -> BrokerAccountList? {
        guard !signedInOnly else { return nil }
        let accounts: [BrokerAccount]
        do {
            accounts = try await client.accounts(clientId: engine.settings.clientId, redirectUri: engine.settings.clientId,
                                                 correlationId: correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            return nil
        }
        let host = engine.settings.authority.descriptor.host
        return BrokerAccountList(accounts: accounts.map {
            MSALAccount(username: $0.username, homeAccountId: $0.homeAccountId,
                        environment: $0.environment.isEmpty ? host : $0.environment, tenantProfiles: nil, claims: nil)
        }, device: nil)
    }

    func signOut(_ account: MSALAccount, _ options: BrokerSignOutOptions, engine: ClientEngine, correlationId: UUID) async throws {
        guard let brokerAccount = Self.account(account) else { return }
        let parameters = Self.parameters(.signOutSilent, engine: engine, authority: engine.settings.authority.descriptor,
                                         scopes: [], claims: nil, account: brokerAccount)
        do {
            _ = try await client.signOut(parameters, correlationId: correlationId)
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            return
        }
    }

    /// The broker's name for `account`.
    static func account(_ account: MSALAccount) -> BrokerAccount? {
        guard let identifier = account.identifier else { return nil }
        let id = MSALAccountId(identifier: identifier)
        return BrokerAccount(homeAccountId: identifier, environment: account.environment,
                             realm: id.tenantId ?? "", localAccountId: id.objectId ?? "", username: account.username ?? "")
    }

    static func parameters(_ type: BrokerRequest.AuthorizationType, engine: ClientEngine, authority: AuthorityDescriptor,
                           scopes: [String], claims: String?, account: BrokerAccount?, username: String? = nil,
                           prompt: String? = nil, popParams: BrokerRequest.PoPParameters? = nil) -> BrokerRequest.AuthParameters {
        var extra = engine.settings.extraQueryParameters
        extra["msal_client_sku"] = ClientHeaders.sku
        extra["msal_client_ver"] = ClientHeaders.version
        var parameters = BrokerRequest.AuthParameters(authorizationType: type, authority: authority.urlString,
                                                      clientId: engine.settings.clientId, redirectUri: redirectUri,
                                                      scopes: scopes, claims: claims, account: account, username: username,
                                                      prompt: prompt, additionalParameters: extra)
        parameters.popParams = popParams
        return parameters
    }

    /// The broker's token as a token response: its expiry dates (milliseconds since the epoch, as msalruntime
    /// sends them: MSAL for Python's `msal/broker.py`, `_convert_result`, reads `get_access_token_expiry_time()`)
    /// as lifetimes from `now`, which the accept step bounds.
    static func response(_ token: BrokerTokenResponse, now: Date) -> TokenResponse {
        TokenResponse(accessToken: token.accessToken, tokenType: token.accessTokenType == 1 ? "pop" : "Bearer",
                      expiresIn: token.expiresOn.timeIntervalSince(now),
                      extExpiresIn: token.extendedExpiresOn.map { $0.timeIntervalSince(now) },
                      scopes: token.grantedScopes.isEmpty ? nil : token.grantedScopes, idToken: token.idToken,
                      clientInfo: token.clientInfo)
    }
}
