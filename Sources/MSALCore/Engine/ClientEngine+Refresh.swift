import Foundation

extension ClientEngine {
    /// Redeems the account's refresh token (then the family refresh token) for new tokens, persists them, and
    /// returns the result. Runs once per key at a time (``RefreshCoordinator``).
    func refresh(_ request: SilentRequest, account: MSALAccount, homeAccountId: String,
                 descriptor: AuthorityDescriptor, environments: [String]) async throws -> MSALResult {
        let correlationId = request.correlationId
        let context = requestContext(correlationId)
        let resolved = try await resolver.resolve(descriptor, knownAuthorities: settings.knownAuthorities, http: http,
                                                  correlationId: correlationId, timeout: context.timeout)
        let lookupEnvironments = KnownAliases.expand(environments + resolved.aliases + [resolved.cacheEnvironment])
        let candidates: [RefreshTokenEntry] = try cache.read { document in
            let own = document.refreshTokens(homeAccountId: homeAccountId, environments: lookupEnvironments,
                                             clientId: settings.clientId)
            let metadata = document.appMetadata(environments: lookupEnvironments, clientId: settings.clientId)
            var family: [RefreshTokenEntry] = []
            if metadata == nil || metadata?.familyId != nil {
                family = document.familyRefreshTokens(homeAccountId: homeAccountId, environments: lookupEnvironments,
                                                      familyId: metadata?.familyId ?? "1")
            }
            var seen = Set(own.map(\.key))
            return own + family.filter { seen.insert($0.key).inserted }
        }
        guard !candidates.isEmpty else {
            var error = MSALErrorInfo(.interactionRequired,
                                      description: "No refresh token is cached for this account and application; sign in interactively.",
                                      correlationId: correlationId)
            error.homeAccountId = homeAccountId
            throw error
        }
        let client = TokenEndpointClient(context: context)
        let claims = ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: nil)
            .flatMap { merged in request.claims.map { mergeClaims(merged, $0) } ?? merged } ?? request.claims
        let scope = Scopes.requestParameter(request.scopes)
        let extraParameters = settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 })
            .sorted(by: { $0.key < $1.key })
        let throttleKey = [resolved.metadata.tokenEndpoint.absoluteString, settings.clientId, homeAccountId,
                           scope.lowercased()].joined(separator: "|")
        var lastError: (any Error)?
        for candidate in candidates {
            var parameters: [(String, String)] = [
                ("client_id", settings.clientId),
                ("grant_type", "refresh_token"),
                ("client_info", "1"),
                ("refresh_token", candidate.secret),
                ("scope", scope),
            ]
            if let claims { parameters.append(("claims", claims)) }
            for (name, value) in extraParameters where !parameters.contains(where: { $0.0 == name }) {
                parameters.append((name, value))
            }
            let response: TokenResponse
            do {
                response = try await client.post(resolved.metadata.tokenEndpoint, parameters: parameters,
                                                 extraHeaders: anchorMailbox(homeAccountId), throttleKey: throttleKey)
            } catch let error as MSALErrorInfo where error.code == .interactionRequired && candidate.key != candidates.last?.key {
                // This refresh token was rejected (revoked, or a family token this client may not use); try the next.
                log(correlationId).info("A cached refresh token was rejected (\(error.oauthError ?? "?")); trying the next one.")
                lastError = error
                continue
            }
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
        }
        throw lastError ?? MSALErrorInfo(.interactionRequired, description: "No usable refresh token.", correlationId: correlationId)
    }

    /// Stores a validated response (before anything is returned, so that a rotated refresh token is never lost)
    /// and builds the result, or the declined-scopes error carrying it.
    func persistAndMakeResult(_ handled: HandledTokenResponse, authority: MSALAuthority, knownAccount: MSALAccount?,
                              correlationId: UUID) throws -> MSALResult {
        let write = handled.write
        try cache.update { document in _ = document.saveTokenResponse(write) }
        let account = try cache.read { document in
            buildAccounts(document, homeAccountId: handled.homeAccountId).first
        } ?? knownAccount ?? MSALAccount(username: write.account?.username, homeAccountId: handled.homeAccountId,
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

    /// Merges two `claims` JSON objects (the second wins per claim).
    private func mergeClaims(_ first: String, _ second: String) -> String {
        guard let a = JSONValue.parseObject(Data(first.utf8)), let b = JSONValue.parseObject(Data(second.utf8)) else {
            return second
        }
        var merged = a
        for (target, value) in b {
            if case .object(let inner)? = merged[target], case .object(let extra) = value {
                merged[target] = .object(inner.merging(extra, uniquingKeysWith: { $1 }))
            } else {
                merged[target] = value
            }
        }
        return JSONText.serialize(.object(merged)) ?? second
    }
}
