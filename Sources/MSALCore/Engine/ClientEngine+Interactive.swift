import Foundation

/// An interactive request, copied from ``MSALInteractiveTokenParameters`` when the call starts.
struct InteractiveRequest: Sendable {
    var scopes: [String]
    var extraScopesToConsent: [String]
    var account: MSALAccount?
    var authority: MSALAuthority?
    var prompt: MSALPromptType
    var loginHint: String?
    var domainHint: String?
    var claimsRequest: MSALClaimsRequest?
    var extraQueryParameters: [String: String]
    var correlationId: UUID
    var authenticator: (any MSALWebAuthenticator)?
    var prefersEphemeralSession: Bool
    /// The application's web view parameters (the presenting view controller, the user agent asked for).
    var webviewParameters: MSALWebviewParameters? = nil
    /// ``MSALTokenParameters/msalXpcMode`` (macOS).
    var xpcMode: MSALXpcMode = .disabled
    /// A proof-of-possession request (``MSALTokenParameters/authenticationScheme``); nil for a bearer token.
    var popScheme: MSALAuthenticationSchemePop?
    /// The key binding of a proof-of-possession request, once read (``ClientEngine/popBinding(_:correlationId:)``).
    var proofOfPossession: PoPBinding? = nil
}

extension ClientEngine {
    /// The user agent a call's web view parameters ask for: `own` (the parameters' ``MSALWebviewParameters/webAuthenticator``,
    /// or the request's), else the platform's embedded web view or system user agent.
    func userAgent(_ parameters: MSALWebviewParameters?, own: (any MSALWebAuthenticator)?, purpose: String,
                   correlationId: UUID) throws -> any MSALWebAuthenticator {
        if let own { return own }
        switch parameters?.userAgentChoice ?? .system {
        case .own(let authenticator):
            return authenticator
        case .unsupported(let reason):
            throw MSALErrorInfo.invalidParameter(reason, correlationId: correlationId)
        case .embedded:
            guard let embeddedAuthenticator else {
                throw MSALErrorInfo.invalidParameter(
                    "An embedded web view (webviewType .wkWebView or customWebview) needs WebKit, which this platform "
                        + "lacks; use .default.", correlationId: correlationId)
            }
            return embeddedAuthenticator
        case .system:
            guard let defaultAuthenticator else {
                throw MSALErrorInfo.internal(.internalErrorNoViewController,
                                             "No web authenticator is available \(purpose); set MSALWebviewParameters.webAuthenticator.",
                                             correlationId: correlationId)
            }
            return defaultAuthenticator
        }
    }

    func acquireTokenInteractive(_ request: InteractiveRequest) async throws -> MSALResult {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        if !request.extraScopesToConsent.isEmpty {
            try Scopes.validate(request.extraScopesToConsent, correlationId: correlationId)
        }
        let started = interactiveRunning.withLock { running -> Bool in
            if running { return false }
            running = true
            return true
        }
        guard started else {
            throw MSALErrorInfo.internal(.internalErrorInteractiveSessionAlreadyRunning,
                                         "Another interactive sign-in is already running.", correlationId: correlationId)
        }
        defer { interactiveRunning.set(false) }

        let authority = try requestAuthority(request.authority, correlationId: correlationId)
        let binding = try popBinding(request.popScheme, correlationId: correlationId)
        var request = request
        request.proofOfPossession = binding
        // The device's broker signs the user in when the application uses one and it answers (a proof-of-possession
        // request too: every broker binds).
        if let result = try await brokeredInteractive(request, authority: authority) { return result }
        let authenticator = try userAgent(request.webviewParameters, own: request.authenticator,
                                          purpose: "to show the sign-in pages", correlationId: correlationId)
        let resolved = try await resolve(authority.descriptor, correlationId: correlationId)
        let verifier = PKCE.makeVerifier()
        var extraQuery = settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 })
        // A nested app: the hub's parameters on the authorization request (`MSIDAADV2WebviewFactory.m:44-52`).
        for (name, value) in settings.nestedAuthParameters { extraQuery[name] = value }
        let authorization = AuthorizationRequest(
            authorizationEndpoint: resolved.metadata.authorizationEndpoint,
            clientId: settings.clientId,
            scopes: request.scopes + request.extraScopesToConsent,
            state: OAuthRandom.state(),
            nonce: OAuthRandom.nonce(),
            codeVerifier: verifier,
            codeChallenge: PKCE.challenge(for: verifier),
            prompt: request.prompt,
            loginHint: request.loginHint ?? request.account?.username,
            domainHint: request.domainHint,
            claims: ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: request.claimsRequest),
            responseMode: nil,
            extraQueryParameters: extraQuery,
            correlationId: correlationId,
            instanceAware: settings.multipleCloudsSupported)
        // A nested app's sign-in ends at the hub's redirect URI (`MSIDWebviewFactory.m:285-291`); its own `brk-` URI
        // is what the requests name.
        var webRequest = MSALWebAuthenticationRequest(
            redirectUri: settings.nestedAuth?.redirectUri ?? settings.redirectUri, state: authorization.state,
            correlationId: correlationId,
            prefersEphemeralSession: request.prefersEphemeralSession, webviewParameters: request.webviewParameters)
        webRequest.deviceAuthentication = deviceAuthentication
        log(correlationId).info("Starting interactive sign-in at \(resolved.descriptor.urlString).")
        // AppAuth's order: the user agent prepares (a listener binds and reports its URI), MSAL builds the URL for
        // that URI, then the user agent presents it.
        let session = try await authenticator.prepare(webRequest)
        let requestRedirect = settings.nestedAuth == nil ? session.redirectUri : settings.redirectUri
        let response = try await session.present(authorization.url(redirectUri: requestRedirect))
        guard case .code(let code, _) = try authorization.read(response) else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "Unexpected authorization outcome.", correlationId: correlationId)
        }
        var redemption = TokenRedemption(
            resolved: resolved, scopes: request.scopes + request.extraScopesToConsent, correlationId: correlationId,
            authority: authority, nonce: authorization.nonce, knownAccount: request.account,
            knownHomeAccountId: request.account?.identifier, requiresIdToken: true, accountSource: "authorization_code")
        redemption.proofOfPossession = binding
        return try await redeem(redemption, grant: authorization.codeGrant(code: code, redirectUri: requestRedirect),
                                cache: cache)
    }

    /// Removes the account's tokens for this application (and the account entry), then returns the end-session URL
    /// when browser sign-out is asked for.
    func signOut(_ account: MSALAccount, fromBrowser: Bool, wipeAccount: Bool = false, wipeCacheForAllAccounts: Bool = false,
                 extraQueryParameters: [String: String]?, correlationId: UUID,
                 cache: (any TokenCachePort)? = nil) async throws -> URL? {
        try await remove(account, everyClient: wipeAccount, cache: cache ?? self.cache)
        if wipeCacheForAllAccounts {
            // Every account of the cache, as MSAL for iOS/macOS wipes its keychain group.
            try await (cache ?? self.cache).update { $0.removeAllAccounts() }
            currentAccountMemory.set(nil)
            try wipePartnerCaches(correlationId: correlationId)
        }
        await brokeredSignOut(account, BrokerSignOutOptions(wipeAccount: wipeAccount,
                                                            wipeCacheForAllAccounts: wipeCacheForAllAccounts),
                              correlationId: correlationId)
        guard fromBrowser else { return nil }
        let resolved = try await resolve(settings.authority.descriptor, correlationId: correlationId)
        guard let endSession = resolved.metadata.endSessionEndpoint else { return nil }
        var pairs: [(String, String)] = []
        if let username = account.username, !username.isEmpty { pairs.append(("logout_hint", username)) }
        for (key, value) in (extraQueryParameters ?? [:]).sorted(by: { $0.key < $1.key }) { pairs.append((key, value)) }
        return FormEncoding.url(endSession, adding: pairs)
    }

    /// How the id token of `response` (if any) is to be verified: the authority's signing keys, fetched through
    /// the application's transport, or trust in TLS when the authority publishes no `jwks_uri`.
    func signatureCheck(for response: TokenResponse, resolved: ResolvedAuthority,
                        correlationId: UUID) async throws -> IdTokenSignatureCheck {
        guard let raw = response.idToken, let token = try? IdToken(raw: raw) else { return .transport }
        let context = RequestContext(http: http, correlationId: correlationId,
                                     timeout: settings.http.timeout)
        return try await signingKeys.check(for: token, metadata: resolved.metadata, context: context, now: clock.now(),
                                           log: log(correlationId))
    }
}

extension ClientEngine {
    /// Removes the other applications' caches ``MSALWipeCacheForAllAccountsConfig`` lists (macOS), as MSAL for
    /// iOS/macOS does for a sign-out that wipes every account (`MSALPublicClientApplication.m:1354-1419`): every
    /// location is tried, and those that could not be removed are named in one error.
    func wipePartnerCaches(correlationId: UUID) throws {
        let locations = MSALWipeCacheForAllAccountsConfig.additionalPartnerLocations()
        guard !locations.isEmpty, let wipe = settings.wipePartnerCaches else { return }
        let failed = wipe(locations).sorted()
        guard failed.isEmpty else {
            throw MSALErrorInfo.internal(
                .internalErrorUnexpected,
                "WipeCacheForAllAccounts - error when removing cache for the item(s): \(failed.map { "'\($0)'" }.joined(separator: ", ")). "
                    + "User might need to select 'Always Allow' when prompted the login password to access keychain.",
                correlationId: correlationId)
        }
    }
}
