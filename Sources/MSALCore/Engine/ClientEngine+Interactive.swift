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
}

extension ClientEngine {
    func acquireTokenInteractive(_ request: InteractiveRequest) async throws -> MSALResult {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        if !request.extraScopesToConsent.isEmpty {
            try Scopes.validate(request.extraScopesToConsent, correlationId: correlationId)
        }
        guard let authenticator = request.authenticator ?? defaultAuthenticator else {
            throw MSALErrorInfo.internal(.internalErrorNoViewController,
                                         "No web authenticator is available to show the sign-in pages; set MSALWebviewParameters.webAuthenticator.",
                                         correlationId: correlationId)
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
        let context = requestContext(correlationId)
        let resolved = try await resolver.resolve(authority.descriptor, knownAuthorities: settings.knownAuthorities,
                                                  http: http, correlationId: correlationId, timeout: context.timeout)
        let verifier = PKCE.makeVerifier()
        let extraQuery = settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 })
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
        let webRequest = MSALWebAuthenticationRequest(
            redirectUri: settings.redirectUri, state: authorization.state, correlationId: correlationId,
            prefersEphemeralSession: request.prefersEphemeralSession)
        log(correlationId).info("Starting interactive sign-in at \(resolved.descriptor.urlString).")
        // AppAuth's order: the user agent prepares (a listener binds and reports its URI), MSAL builds the URL for
        // that URI, then the user agent presents it.
        let session = try await authenticator.prepare(webRequest)
        let response = try await session.present(authorization.url(redirectUri: session.redirectUri))
        guard case .code(let code, _) = try authorization.read(response) else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "Unexpected authorization outcome.", correlationId: correlationId)
        }
        let tokenResponse = try await TokenEndpointClient(context: context).post(
            resolved.metadata.tokenEndpoint,
            parameters: authorization.codeGrant(code: code, redirectUri: session.redirectUri).formParameters)
        let handler = TokenResponseHandler(clientId: settings.clientId, resolved: resolved,
                                           requestedScopes: request.scopes + request.extraScopesToConsent,
                                           nonce: authorization.nonce, knownHomeAccountId: request.account?.identifier,
                                           signature: try await signatureCheck(for: tokenResponse, resolved: resolved,
                                                                               correlationId: correlationId),
                                           requiresIdToken: true, now: clock.now(), correlationId: correlationId, log: log(correlationId))
        let handled = try handler.handle(tokenResponse, accountSource: "authorization_code", replacingRefreshTokenKey: nil)
        let resultAuthority: MSALAuthority
        if authority.descriptor.kind == .aad, authority.descriptor.tenantKind != .specific {
            resultAuthority = MSALAuthority.make(authority.descriptor.withTenant(handled.realm))
        } else {
            resultAuthority = authority
        }
        return try persistAndMakeResult(handled, authority: resultAuthority, knownAccount: request.account,
                                        correlationId: correlationId)
    }

    /// Removes the account's tokens for this application (and the account entry), then returns the end-session URL
    /// when browser sign-out is asked for.
    func signOut(_ account: MSALAccount, fromBrowser: Bool, wipeAccount: Bool = false,
                 extraQueryParameters: [String: String]?, correlationId: UUID) async throws -> URL? {
        try remove(account, everyClient: wipeAccount)
        guard fromBrowser else { return nil }
        let context = requestContext(correlationId)
        let resolved = try await resolver.resolve(settings.authority.descriptor, knownAuthorities: settings.knownAuthorities,
                                                  http: http, correlationId: correlationId, timeout: context.timeout)
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
