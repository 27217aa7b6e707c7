import Foundation

extension ClientEngine {
    /// The grant of a silent request (``UserTokenPlan``): finds the account's refresh tokens (its own, then the
    /// family's), redeems them as the machine's redemption steps ask, and accepts the tokens of the first one the
    /// identity provider takes.
    func refresh(_ plan: UserTokenPlan, machine: SilentFlowStateMachine,
                 cache: any TokenCachePort) async throws -> MSALResult {
        let initialMachine = machine
        var machine = machine
        let request = plan.request
        let correlationId = request.correlationId
        let resolved = try await resolve(plan.descriptor, correlationId: correlationId)
        let lookupEnvironments = KnownAliases.expand(plan.environments + resolved.aliases + [resolved.cacheEnvironment])
        let candidates = try refreshCandidates(plan, environments: lookupEnvironments, cache: cache)
        /// The refresh tokens sent so far, and whether the one retry after a rotation elsewhere was used.
        var redeemed = Set<String>()
        var retriedAfterRotation = false
        let claims = RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: request.claims)
        let extraParameters = settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 })
        var redemption = TokenRedemption(
            resolved: resolved, scopes: request.scopes, correlationId: correlationId,
            authority: MSALAuthority.make(plan.descriptor), knownAccount: plan.account,
            knownHomeAccountId: plan.homeAccountId, sameSubjectEnvironments: lookupEnvironments,
            extraHeaders: anchorMailbox(plan.homeAccountId),
            throttleKey: [resolved.metadata.tokenEndpoint.absoluteString, settings.clientId, plan.homeAccountId,
                          Scopes.requestParameter(request.scopes).lowercased()].joined(separator: "|"))
        redemption.proofOfPossession = plan.proofOfPossession
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
                    response = try await postGrant(grant, redemption: redemption)
                    action = machine.next(.tokensReceived)
                } catch {
                    action = machine.next(.redeemFailed(error))
                    if case .redeem = action {
                        log(correlationId).info("A cached refresh token was rejected (\((error as? MSALErrorInfo)?.oauthError ?? "?")); trying the next one.")
                    }
                }
            case .acceptTokens(let candidate):
                guard let response else { throw TokenAcquisition.unexpectedStep(correlationId) }
                redemption.replacingRefreshTokenKey = candidate.key
                return try await accept(response, redemption, cache: cache)
            case .fail(let error):
                // Rejected (invalid_grant) while another process may have rotated the refresh token: read the cache
                // again and, once, redeem the refresh tokens it stored meanwhile.
                guard !retriedAfterRotation, (error as? MSALErrorInfo)?.oauthError == "invalid_grant" else { throw error }
                retriedAfterRotation = true
                let stored = try refreshCandidates(plan, environments: lookupEnvironments, cache: cache)
                    .filter { !redeemed.contains($0.secret) }
                guard !stored.isEmpty else { throw error }
                log(correlationId).info("A refresh token was rejected, but a newer one was stored meanwhile; retrying once with it.")
                machine = initialMachine
                action = machine.next(.candidatesFound(stored))
            default:
                throw TokenAcquisition.unexpectedStep(correlationId)
            }
        }
    }

    /// The account's refresh tokens to try, in order: this client's own, then its family's (when the client is in a
    /// family, or not known not to be); when the unified cache has none, those of ADAL's legacy cache.
    private func refreshCandidates(_ plan: UserTokenPlan, environments: [String],
                                   cache: any TokenCachePort) throws -> [RefreshTokenEntry] {
        let homeAccountId = plan.homeAccountId
        var familyId: String?
        let unified: [RefreshTokenEntry] = try cache.read { document in
            let own = document.refreshTokens(homeAccountId: homeAccountId, environments: environments,
                                             clientId: settings.refreshTokenClientId)
            let metadata = document.appMetadata(environments: environments, clientId: settings.clientId)
            familyId = metadata?.familyId
            var family: [RefreshTokenEntry] = []
            if metadata == nil || metadata?.familyId != nil {
                family = document.familyRefreshTokens(homeAccountId: homeAccountId, environments: environments,
                                                      familyId: metadata?.familyId ?? "1")
            }
            var seen = Set(own.map(\.key))
            return own + family.filter { seen.insert($0.key).inserted }
        }
        guard unified.isEmpty, settings.legacyCache != nil else { return unified }
        return legacyRefreshCandidates(plan, environments: environments, familyId: familyId)
    }

    /// `X-AnchorMailbox: Oid:<uid>@<utid>`, which routes the request to the account's home region.
    func anchorMailbox(_ homeAccountId: String) -> [String: String] {
        let id = MSALAccountId(identifier: homeAccountId)
        guard let uid = id.objectId, let utid = id.tenantId else { return [:] }
        return ["X-AnchorMailbox": "Oid:\(uid)@\(utid)"]
    }
}
