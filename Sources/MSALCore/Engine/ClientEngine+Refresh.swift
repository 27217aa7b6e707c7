import Foundation

extension ClientEngine {
    /// The redemption part of ``SilentFlowStateMachine`` (run once per key at a time, ``RefreshCoordinator``):
    /// finds the account's refresh tokens (its own, then the family's), redeems them as the machine asks, and
    /// stores the tokens of the first one accepted.
    func refresh(_ request: SilentRequest, machine: SilentFlowStateMachine, account: MSALAccount, homeAccountId: String,
                 descriptor: AuthorityDescriptor, environments: [String]) async throws -> MSALResult {
        let initialMachine = machine
        var machine = machine
        let correlationId = request.correlationId
        let context = requestContext(correlationId)
        let resolved = try await resolver.resolve(descriptor, knownAuthorities: settings.knownAuthorities, http: http,
                                                  correlationId: correlationId, timeout: context.timeout)
        let lookupEnvironments = KnownAliases.expand(environments + resolved.aliases + [resolved.cacheEnvironment])
        let candidates = try refreshCandidates(homeAccountId: homeAccountId, environments: lookupEnvironments)
        /// The refresh tokens sent so far, and whether the one retry after a rotation elsewhere was used.
        var redeemed = Set<String>()
        var retriedAfterRotation = false
        let client = TokenEndpointClient(context: context)
        let claims = RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: request.claims)
        let extraParameters = settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 })
        let throttleKey = [resolved.metadata.tokenEndpoint.absoluteString, settings.clientId, homeAccountId,
                           Scopes.requestParameter(request.scopes).lowercased()].joined(separator: "|")
        var response: TokenResponse?
        var action = machine.next(.candidatesFound(candidates))
        while true {
            switch action {
            case .redeem(let candidate):
                redeemed.insert(candidate.secret)
                let grant = RefreshTokenGrantRequest(clientId: settings.clientId, refreshToken: candidate.secret,
                                                     scopes: request.scopes, claims: claims,
                                                     extraParameters: extraParameters)
                do {
                    // A confidential client (web app) authenticates its refresh too.
                    let authentication = settings.credential == nil ? [] : try await clientAuthentication(
                        tokenEndpoint: resolved.metadata.tokenEndpoint, descriptor: resolved.descriptor,
                        correlationId: correlationId)
                    response = try await client.post(resolved.metadata.tokenEndpoint,
                                                     parameters: grant.formParameters + authentication,
                                                     extraHeaders: anchorMailbox(homeAccountId), throttleKey: throttleKey)
                    action = machine.next(.tokensReceived)
                } catch {
                    action = machine.next(.redeemFailed(error))
                    if case .redeem = action {
                        log(correlationId).info("A cached refresh token was rejected (\((error as? MSALErrorInfo)?.oauthError ?? "?")); trying the next one.")
                    }
                }
            case .acceptTokens(let candidate):
                guard let response else { throw Self.unexpectedStep(correlationId) }
                let handler = TokenResponseHandler(clientId: settings.clientId, resolved: resolved,
                                                   requestedScopes: request.scopes, nonce: nil,
                                                   knownHomeAccountId: homeAccountId,
                                                   signature: try await signatureCheck(for: response, resolved: resolved,
                                                                                       correlationId: correlationId),
                                                   requiresIdToken: false, now: clock.now(), correlationId: correlationId, log: log(correlationId))
                let handled = try handler.handle(response, accountSource: nil, replacingRefreshTokenKey: candidate.key)
                try checkSameSubject(handled, homeAccountId: homeAccountId, environments: lookupEnvironments,
                                     correlationId: correlationId)
                return try persistAndMakeResult(handled, authority: MSALAuthority.make(descriptor), knownAccount: account,
                                                correlationId: correlationId)
            case .fail(let error):
                // Rejected (invalid_grant) while another process may have rotated the refresh token: read the cache
                // again and, once, redeem the refresh tokens it stored meanwhile.
                guard !retriedAfterRotation, (error as? MSALErrorInfo)?.oauthError == "invalid_grant" else { throw error }
                retriedAfterRotation = true
                let stored = try refreshCandidates(homeAccountId: homeAccountId, environments: lookupEnvironments)
                    .filter { !redeemed.contains($0.secret) }
                guard !stored.isEmpty else { throw error }
                log(correlationId).info("A refresh token was rejected, but a newer one was stored meanwhile; retrying once with it.")
                machine = initialMachine
                action = machine.next(.candidatesFound(stored))
            default:
                throw Self.unexpectedStep(correlationId)
            }
        }
    }

    /// The account's refresh tokens to try, in order: this client's own, then its family's (when the client is in a
    /// family, or not known not to be).
    private func refreshCandidates(homeAccountId: String, environments: [String]) throws -> [RefreshTokenEntry] {
        try cache.read { document in
            let own = document.refreshTokens(homeAccountId: homeAccountId, environments: environments,
                                             clientId: settings.clientId)
            let metadata = document.appMetadata(environments: environments, clientId: settings.clientId)
            var family: [RefreshTokenEntry] = []
            if metadata == nil || metadata?.familyId != nil {
                family = document.familyRefreshTokens(homeAccountId: homeAccountId, environments: environments,
                                                      familyId: metadata?.familyId ?? "1")
            }
            var seen = Set(own.map(\.key))
            return own + family.filter { seen.insert($0.key).inserted }
        }
    }

    /// Stores a validated response (before anything is returned, so that a rotated refresh token is never lost)
    /// and builds the result, or the declined-scopes error carrying it.
    func persistAndMakeResult(_ handled: HandledTokenResponse, authority: MSALAuthority, knownAccount: MSALAccount?,
                              correlationId: UUID) throws -> MSALResult {
        var write = handled.write
        write.clientCapabilities = TokenCacheDocument.capabilitiesMarker(settings.clientCapabilities)
        RequestDiagnostics.current?.noteSource(.identityProvider)
        let saved = cache.storeObtainedToken(log: log(correlationId)) { document in _ = document.saveTokenResponse(write) }
        // The stored account when the cache can be read now (a busy shared cache is no reason to fail a sign-in that
        // succeeded), else the one the response describes.
        let account = (saved ? try? cache.read { document in
            buildAccounts(document, homeAccountId: handled.homeAccountId).first
        } : nil) ?? knownAccount ?? MSALAccount(username: write.account?.username, homeAccountId: handled.homeAccountId,
                                         environment: write.environment, tenantProfiles: nil, claims: handled.idToken?.claims)
        let profile = tenantProfile(homeAccountId: handled.homeAccountId, realm: handled.realm,
                                    environment: write.environment, rawIdToken: write.idToken)
        let result = MSALResult(accessToken: handled.accessToken, expiresOn: handled.expiresOn, extendedLifeTimeToken: false,
                                idToken: write.idToken, scopes: Scopes.resultScopes(handled.granted),
                                tenantProfile: profile, account: account, authority: authority, correlationId: correlationId)
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
    private func checkSameSubject(_ handled: HandledTokenResponse, homeAccountId: String, environments: [String],
                                  correlationId: UUID) throws {
        guard let current = handled.idToken else { return }
        let previousRaw = try cache.read { document in
            document.idToken(homeAccountId: homeAccountId, environments: environments, realm: handled.realm,
                             clientId: settings.clientId)?.secret
        }
        guard let previousRaw, let previous = try? IdToken(raw: previousRaw) else { return }
        do {
            try IdTokenValidator.validateSameSubject(previous: previous, current: current)
        } catch var error as MSALErrorInfo {
            error.correlationId = correlationId
            error.homeAccountId = homeAccountId
            throw error
        }
    }

    /// `X-AnchorMailbox: Oid:<uid>@<utid>`, which routes the request to the account's home region.
    func anchorMailbox(_ homeAccountId: String) -> [String: String] {
        let id = MSALAccountId(identifier: homeAccountId)
        guard let uid = id.objectId, let utid = id.tenantId else { return [:] }
        return ["X-AnchorMailbox": "Oid:\(uid)@\(utid)"]
    }
}
