import Foundation

/// What one redemption of a user-token grant expects and where its tokens go: the input of the one redeem step
/// (``ClientEngine/redeem(_:parameters:cache:)`` and ``ClientEngine/accept(_:_:cache:)``), used by every grant that
/// returns user tokens (authorization code, device code, refresh token, on-behalf-of, and grants added later).
struct TokenRedemption: Sendable {
    var resolved: ResolvedAuthority
    /// The scopes the application asked for (without reserved scopes).
    var scopes: [String]
    var correlationId: UUID
    /// The authority the result names (``AuthorityDescriptor/resultAuthority(_:realm:)`` settles a tenantless one).
    var authority: MSALAuthority
    /// The nonce of the authorization request (authorization code grants).
    var nonce: String? = nil
    /// The account the request is for, when known (a refresh, an interactive sign-in with an account).
    var knownAccount: MSALAccount? = nil
    var knownHomeAccountId: String? = nil
    /// Whether the answer must carry an id token (a sign-in grant that asked for `openid`).
    var requiresIdToken = false
    /// The grant that created the account, recorded in the cache's account entry.
    var accountSource: String? = nil
    /// The refresh token the answer replaces (a refresh).
    var replacingRefreshTokenKey: String? = nil
    /// The hash of the incoming assertion the tokens were obtained with (on-behalf-of).
    var userAssertionHash: String? = nil
    /// When set, the refreshed id token must name the user the account already holds in these environments
    /// (OpenID Connect Core §12.2).
    var sameSubjectEnvironments: [String]? = nil
    var extraHeaders: [String: String] = [:]
    var throttleKey: String? = nil
    /// A proof-of-possession request: the token is asked for bound to this key, must come back bound
    /// (`token_type` `pop`), is cached under the key, and the result carries a signed request.
    var proofOfPossession: PoPBinding? = nil
    /// A broker's proof-of-possession answer bound to the broker's own key: it must be `pop`, its access token is not
    /// cached, and the result carries the broker's signed request.
    var brokerKeyBinding: BrokerKeyBinding? = nil
}

extension ClientEngine {
    /// The redeem step: sends `grant` (with the client authentication of a confidential client) to the token
    /// endpoint, then ``accept(_:_:cache:)``.
    func redeem(_ redemption: TokenRedemption, grant: some TokenGrant, cache: any TokenCachePort) async throws -> MSALResult {
        let response = try await postGrant(grant, redemption: redemption)
        return try await accept(response, redemption, cache: cache)
    }

    /// Sends `grant` to the token endpoint of `redemption`'s authority.
    func postGrant(_ grant: some TokenGrant, redemption: TokenRedemption) async throws -> TokenResponse {
        try await postGrant(grant, endpoint: redemption.resolved.metadata.tokenEndpoint,
                            descriptor: redemption.resolved.descriptor, correlationId: redemption.correlationId,
                            extraHeaders: redemption.extraHeaders, throttleKey: redemption.throttleKey,
                            extraParameters: redemption.proofOfPossession?.tokenRequestParameters ?? [])
    }

    /// The one send step of every grant: a confidential client authenticates it (``clientAuthentication(tokenEndpoint:descriptor:correlationId:)``),
    /// and the token endpoint client retries, throttles and maps errors.
    func postGrant(_ grant: some TokenGrant, endpoint: URL, descriptor: AuthorityDescriptor, correlationId: UUID,
                   extraHeaders: [String: String] = [:], throttleKey: String? = nil,
                   extraParameters: [(String, String)] = []) async throws -> TokenResponse {
        let authentication = settings.credential == nil ? [] : try await clientAuthentication(
            tokenEndpoint: endpoint, descriptor: descriptor, correlationId: correlationId)
        return try await TokenEndpointClient(context: requestContext(correlationId))
            .post(endpoint, parameters: nested(grant.formParameters) + extraParameters + authentication,
                  extraHeaders: extraHeaders, throttleKey: throttleKey)
    }

    /// A nested app's code and refresh-token grants with `brk_client_id` and `brk_redirect_uri` (and a refresh grant
    /// with its `redirect_uri`), as MSAL for iOS/macOS sends them (`MSIDAADV2Oauth2Factory.m:210-282`).
    private func nested(_ form: [(String, String)]) -> [(String, String)] {
        let nested = settings.nestedAuthParameters
        guard !nested.isEmpty, let type = form.first(where: { $0.0 == "grant_type" })?.1,
              type == "authorization_code" || type == "refresh_token" else { return form }
        var pairs = form
        if !pairs.contains(where: { $0.0 == "redirect_uri" }) { pairs.append(("redirect_uri", settings.redirectUri)) }
        return pairs + nested
    }

    /// Validates a token response (id token signature, nonce, subject), stores it through `cache` before anything
    /// is returned (so that a rotated refresh token is never lost), and builds the result, or the declined-scopes
    /// error carrying it.
    func accept(_ response: TokenResponse, _ redemption: TokenRedemption, cache: any TokenCachePort) async throws -> MSALResult {
        try await accept(response, redemption, cacheForAccount: { _ in cache })
    }

    /// ``accept(_:_:cache:)`` storing in the cache `cacheForAccount` gives for the home account id of the answer
    /// (a partition of a partitioned cache, known only from the answer).
    func accept(_ response: TokenResponse, _ redemption: TokenRedemption,
                cacheForAccount: @Sendable (String) async -> any TokenCachePort) async throws -> MSALResult {
        let correlationId = redemption.correlationId
        let handler = TokenResponseHandler(
            clientId: settings.clientId, resolved: redemption.resolved, requestedScopes: redemption.scopes,
            nonce: redemption.nonce, knownHomeAccountId: redemption.knownHomeAccountId,
            signature: try await signatureCheck(for: response, resolved: redemption.resolved, correlationId: correlationId),
            requiresIdToken: redemption.requiresIdToken, now: clock.now(), correlationId: correlationId,
            log: log(correlationId),
            expectsProofOfPossession: redemption.proofOfPossession != nil || redemption.brokerKeyBinding != nil)
        var handled = try handler.handle(response, accountSource: redemption.accountSource,
                                         replacingRefreshTokenKey: redemption.replacingRefreshTokenKey)
        let cache = await cacheForAccount(handled.homeAccountId)
        handled.write.userAssertionHash = redemption.userAssertionHash
        if let environments = redemption.sameSubjectEnvironments {
            try checkSameSubject(handled, environments: environments, cache: cache, correlationId: correlationId)
        }
        let authority = redemption.authority.descriptor.resultAuthority(redemption.authority, realm: handled.realm)
        return try await store(handled, authority: authority, knownAccount: redemption.knownAccount, cache: cache,
                               correlationId: correlationId, proofOfPossession: redemption.proofOfPossession,
                               brokerKeyBinding: redemption.brokerKeyBinding)
    }

    /// Stores a validated response and builds the result, or the declined-scopes error carrying it.
    private func store(_ handled: HandledTokenResponse, authority: MSALAuthority, knownAccount: MSALAccount?,
                       cache: any TokenCachePort, correlationId: UUID,
                       proofOfPossession: PoPBinding? = nil, brokerKeyBinding: BrokerKeyBinding? = nil) async throws -> MSALResult {
        var write = handled.write
        write.refreshTokenClientId = settings.nestedAuth?.clientId
        write.clientCapabilities = TokenCacheDocument.capabilitiesMarker(settings.clientCapabilities)
        // A bound token is kept apart from bearer tokens, under its key (``PoPAccessToken``); one bound to a broker's
        // key is not kept at all.
        let bound = proofOfPossession.map { PoPAccessToken(write, keyId: $0.key.keyId, secret: handled.accessToken) }
        if bound != nil || brokerKeyBinding != nil { write.accessToken = nil }
        RequestDiagnostics.current?.noteSource(.identityProvider)
        let saving = write
        let saved = await cache.storeObtainedToken(log: log(correlationId)) { document in
            _ = document.saveTokenResponse(saving)
            if let bound { document.savePoPAccessToken(bound) }
        }
        if saved { saveLegacyRefreshToken(saving, origin: authority.descriptor.origin, correlationId: correlationId) }
        // The stored account when the cache can be read now (a busy shared cache is no reason to fail a sign-in that
        // succeeded), else the one the response describes.
        let account = (saved ? try? cache.read { document in
            buildAccounts(document, homeAccountId: handled.homeAccountId).first
        } : nil) ?? knownAccount ?? MSALAccount(username: write.account?.username, homeAccountId: handled.homeAccountId,
                                                environment: write.environment, tenantProfiles: nil,
                                                claims: handled.idToken?.claims)
        let profile = tenantProfile(homeAccountId: handled.homeAccountId, realm: handled.realm,
                                    environment: write.environment, rawIdToken: write.idToken)
        let accessToken = try brokerKeyBinding.map { $0.signedRequest ?? "" }
            ?? proofOfPossession.map { try signedRequest(handled.accessToken, $0) } ?? handled.accessToken
        let result = MSALResult(accessToken: accessToken, expiresOn: handled.expiresOn, extendedLifeTimeToken: false,
                                idToken: write.idToken, scopes: Scopes.resultScopes(handled.granted),
                                tenantProfile: profile, account: account, authority: authority, correlationId: correlationId,
                                authenticationScheme: proofOfPossession == nil && brokerKeyBinding == nil ? "Bearer" : "Pop")
        if !handled.declined.isEmpty {
            var error = MSALErrorInfo(.serverDeclinedScopes,
                                      description: "The server did not grant the scopes \(handled.declined).",
                                      correlationId: correlationId)
            error.declinedScopes = handled.declined
            error.grantedScopes = result.scopes
            error.invalidResult = result
            throw error
        }
        return result
    }

    /// OpenID Connect Core §12.2: a refreshed id token must name the user of the id token the account already
    /// holds for that tenant (same `iss`, `sub` and `oid`); otherwise nothing is stored.
    private func checkSameSubject(_ handled: HandledTokenResponse, environments: [String], cache: any TokenCachePort,
                                  correlationId: UUID) throws {
        guard let current = handled.idToken else { return }
        let previousRaw = try cache.read { document in
            document.idToken(homeAccountId: handled.homeAccountId, environments: environments, realm: handled.realm,
                             clientId: settings.clientId)?.secret
        }
        guard let previousRaw, let previous = try? IdToken(raw: previousRaw) else { return }
        do {
            try IdTokenValidator.validateSameSubject(previous: previous, current: current)
        } catch var error as MSALErrorInfo {
            error.correlationId = correlationId
            error.homeAccountId = handled.homeAccountId
            throw error
        }
    }
}
