import Crypto
import Foundation

/// An on-behalf-of request: a cached token obtained with the same incoming assertion when one is valid; else its
/// refresh token; else the JWT bearer grant. What is stored carries the assertion's hash, so that it is found again
/// only for that assertion.
struct OnBehalfOfPlan: AcquisitionPlan {
    let engine: ClientEngine
    let request: OnBehalfOfRequest
    let resolved: ResolvedAuthority
    let assertion: String
    let assertionHash: String
    /// A proof-of-possession request's key binding.
    var proofOfPossession: PoPBinding? = nil

    var correlationId: UUID { request.correlationId }
    var forceRefresh: Bool { request.forceRefresh }
    var hasClaims: Bool { request.claims != nil }
    var tokenName: String { "on-behalf-of token" }
    var flightKey: String {
        ["obo", assertionHash, Scopes.requestParameter(request.scopes).lowercased(), request.claims ?? "",
         request.forceRefresh ? "force" : "", proofOfPossession?.key.keyId ?? ""].joined(separator: "|")
    }
    var lockKey: String { flightKey }
    var lockTimeout: TimeInterval { engine.refreshLockTimeout }

    var environments: [String] { KnownAliases.expand([resolved.cacheEnvironment] + resolved.aliases) }
    /// The incoming token's claims, read without verification, only to find the cache entries (the hash must match
    /// too).
    var claims: IdToken? { try? IdToken(raw: assertion) }
    /// `oid.tid` of the incoming token: the home account id of a user in their home tenant.
    var homeAccountId: String? {
        guard let claims, let oid = claims.oid, let tid = claims.tid else { return nil }
        return "\(oid).\(tid)"
    }
    var realms: [String] {
        var realms = [resolved.metadata.tokenEndpoint.pathComponents.dropFirst().first ?? resolved.descriptor.tenant]
        if let tid = claims?.tid, !realms.contains(tid) { realms.append(tid) }
        return realms
    }

    func lookUp(in cache: any TokenCachePort) async throws -> CachedToken<MSALResult>? {
        guard let home = homeAccountId else { return nil }
        if let binding = proofOfPossession { return try lookUpBound(binding, home: home, in: cache) }
        let scopes = ScopeSet(request.scopes)
        let (engine, clientId) = (engine, engine.settings.clientId)
        let capabilities = TokenCacheDocument.capabilitiesMarker(engine.settings.clientCapabilities)
        let found: (AccessTokenEntry, String?, MSALAccount?)? = try cache.read { document in
            for realm in realms {
                if let entry = document.findAccessToken(
                    homeAccountId: home, environments: environments, clientId: clientId, realm: realm,
                    scopes: scopes, assertionHash: assertionHash, capabilities: capabilities) {
                    let idToken = document.idToken(homeAccountId: home, environments: environments,
                                                   realm: entry.realm, clientId: clientId)?.secret
                    return (entry, idToken, engine.buildAccounts(document, homeAccountId: home).first)
                }
            }
            return nil
        }
        guard let (entry, idToken, account) = found else { return nil }
        let resultAccount = account ?? MSALAccount(username: claims?.preferredUsername, homeAccountId: home,
                                                   environment: entry.environment, tenantProfiles: nil, claims: nil)
        let (descriptor, correlationId) = (resolved.descriptor, correlationId)
        return CachedToken(times: CachedTokenTimes(entry), secret: entry.secret) { extended in
            engine.cachedResult(entry, idToken: idToken, extended: extended, account: resultAccount,
                                authority: engine.settings.authority, descriptor: descriptor, correlationId: correlationId)
        }
    }

    /// A token bound to `binding`'s key obtained with this assertion, with a new signed request; never a bearer one.
    private func lookUpBound(_ binding: PoPBinding, home: String, in cache: any TokenCachePort) throws -> CachedToken<MSALResult>? {
        let (engine, clientId, environments, realms, hash) = (engine, engine.settings.clientId, environments, realms, assertionHash)
        let found: (PoPAccessToken, String?, MSALAccount?)? = try cache.read { document in
            for realm in realms {
                if let token = document.findPoPAccessToken(homeAccountId: home, environments: environments, clientId: clientId,
                                                           realm: realm, scopes: request.scopes, keyId: binding.key.keyId,
                                                           assertionHash: hash) {
                    let idToken = document.idToken(homeAccountId: home, environments: environments, realm: token.realm,
                                                   clientId: clientId)?.secret
                    return (token, idToken, engine.buildAccounts(document, homeAccountId: home).first)
                }
            }
            return nil
        }
        guard let (token, idToken, account) = found else { return nil }
        let resultAccount = account ?? MSALAccount(username: claims?.preferredUsername, homeAccountId: home,
                                                   environment: token.environment, tenantProfiles: nil, claims: nil)
        guard let result = try? engine.cachedPoPResult(token, binding: binding, idToken: idToken, account: resultAccount,
                                                       authority: engine.settings.authority, descriptor: resolved.descriptor,
                                                       correlationId: correlationId) else { return nil }
        let times = CachedTokenTimes(expiresOn: Date(timeIntervalSince1970: TimeInterval(token.expiresOn)))
        return CachedToken(times: times, secret: token.secret) { _ in result }
    }

    func obtain(using cache: any TokenCachePort, redemption: SilentFlowStateMachine) async throws -> MSALResult {
        var redemption = TokenRedemption(resolved: resolved, scopes: request.scopes, correlationId: correlationId,
                                         authority: engine.settings.authority, userAssertionHash: assertionHash)
        redemption.proofOfPossession = proofOfPossession
        if !forceRefresh, !hasClaims, let refreshed = try await refresh(redemption, cache: cache) { return refreshed }
        let grant = OnBehalfOfGrantRequest(
            clientId: engine.settings.clientId, assertion: assertion, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: engine.settings.clientCapabilities,
                                                    requested: request.claims))
        return try await engine.redeem(redemption, grant: grant, cache: cache)
    }

    /// Redeems the refresh token obtained with the same assertion, if any; nil when there is none or it is no
    /// longer accepted (the assertion itself is used then).
    private func refresh(_ redemption: TokenRedemption, cache: any TokenCachePort) async throws -> MSALResult? {
        guard let home = homeAccountId else { return nil }
        let (clientId, environments, hash) = (engine.settings.clientId, environments, assertionHash)
        let candidates = try cache.read { document in
            document.onBehalfOfRefreshTokens(homeAccountId: home, assertionHash: hash, environments: environments,
                                             clientId: clientId)
        }
        guard let candidate = candidates.first else { return nil }
        let grant = RefreshTokenGrantRequest(
            clientId: clientId, refreshToken: candidate.secret, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: engine.settings.clientCapabilities, requested: nil),
            extraParameters: engine.settings.extraQueryParameters)
        let response: TokenResponse
        do {
            response = try await engine.postGrant(grant, redemption: redemption)
        } catch let error as MSALErrorInfo where error.oauthError == "invalid_grant" {
            engine.log(correlationId).info("The on-behalf-of refresh token was refused; using the assertion.")
            return nil
        }
        var refreshing = redemption
        refreshing.knownHomeAccountId = home
        refreshing.replacingRefreshTokenKey = candidate.key
        return try await engine.accept(response, refreshing, cache: cache)
    }
}

extension ClientEngine {
    /// On-behalf-of, through the acquisition driver (``OnBehalfOfPlan``).
    func acquireTokenOnBehalfOf(_ request: OnBehalfOfRequest,
                                cache: (any TokenCachePort)? = nil) async throws -> MSALResult {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        let assertion = request.userAssertion.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !assertion.isEmpty, assertion.utf8.count <= 64 * 1024 else {
            throw MSALErrorInfo.invalidParameter("The user assertion must be the incoming access token (at most 64 KiB).",
                                                 correlationId: correlationId)
        }
        let hash = Base64URL.encode(Data(SHA256.hash(data: Data(assertion.utf8))))
        let resolved = try await resolve(settings.authority.descriptor, correlationId: correlationId)
        var plan = OnBehalfOfPlan(engine: self, request: request, resolved: resolved, assertion: assertion,
                                  assertionHash: hash)
        plan.proofOfPossession = try popBinding(request.popScheme, correlationId: correlationId)
        return try await acquisition.run(plan, cache: cache ?? self.cache)
    }
}
