import Foundation

/// A silent request for a user's token (``MSALPublicClientApplication/acquireTokenSilent(with:)`` and a web app's):
/// the account's cached access token, else its refresh tokens (its own, then its family's) redeemed one after the
/// other.
struct UserTokenPlan: AcquisitionPlan {
    let engine: ClientEngine
    let request: SilentRequest
    let account: MSALAccount
    let homeAccountId: String
    /// The authority the request names (or the application's), and where it goes (the account's home tenant for a
    /// tenantless one).
    let authority: MSALAuthority
    let descriptor: AuthorityDescriptor
    /// The environments tokens are looked up and redeemed in: the request's cloud and its aliases.
    let environments: [String]
    /// The realms a cached token may be stored under, in order.
    let realms: [String]
    /// A proof-of-possession request's key binding: the token is looked up bound to the key and asked for so.
    var proofOfPossession: PoPBinding? = nil

    var correlationId: UUID { request.correlationId }
    var forceRefresh: Bool { request.forceRefresh }
    var hasClaims: Bool { request.hasClaimsRequest }
    var tokenName: String { "access token" }
    var flightKey: String {
        ["user", homeAccountId.lowercased(), descriptor.urlString.lowercased(),
         request.scopes.map { $0.lowercased() }.sorted().joined(separator: " "), request.claims ?? "",
         request.forceRefresh ? "force" : ""].joined(separator: "|")
    }
    /// One redemption of the account's refresh token at a time, whatever the scopes (an identity provider may accept
    /// each refresh token once): requests for other scopes wait, then use the rotated one.
    var lockKey: String { "refresh|" + homeAccountId.lowercased() + "|" + descriptor.host.lowercased() }
    var lockTimeout: TimeInterval { engine.refreshLockTimeout }

    private var memoKey: SilentHitMemo.Key {
        SilentHitMemo.Key(account: ObjectIdentifier(account), authority: request.authority.map(ObjectIdentifier.init),
                          scopes: request.scopes)
    }

    func lookUp(in cache: any TokenCachePort) async throws -> CachedToken<MSALResult>? {
        if let binding = proofOfPossession { return try lookUpBound(binding, in: cache) }
        let scopeSet = ScopeSet(request.scopes)
        let capabilities = TokenCacheDocument.capabilitiesMarker(engine.settings.clientCapabilities)
        let clientId = engine.settings.clientId
        let found: (entry: AccessTokenEntry, idToken: String?, document: TokenCacheDocument, changeCount: Int)? =
            try cache.read { document in
                for realm in realms {
                    if let entry = document.findAccessToken(homeAccountId: homeAccountId, environments: environments,
                                                            clientId: clientId, realm: realm, scopes: scopeSet,
                                                            capabilities: capabilities) {
                        let idToken = document.idToken(homeAccountId: homeAccountId, environments: environments,
                                                       realm: entry.realm, clientId: clientId)?.secret
                        return (entry, idToken, document, document.changeCount)
                    }
                }
                return nil
            }
        guard let found else { return nil }
        let (engine, account, authority, descriptor, memoKey, requestAuthority) =
            (engine, account, authority, descriptor, memoKey, request.authority)
        let correlationId = correlationId
        return CachedToken(times: CachedTokenTimes(found.entry), secret: found.entry.secret) { extended in
            let result = engine.cachedResult(found.entry, idToken: found.idToken, extended: extended, account: account,
                                             authority: authority, descriptor: descriptor, correlationId: correlationId)
            if !extended {
                engine.hitMemo.record(memoKey, SilentHitMemo.Hit(
                    account: account, authority: requestAuthority, scopes: memoKey.scopes, memo: engine.hitMemo,
                    document: found.document,
                    changeCount: found.changeCount, entry: found.entry, payload: result.payload))
            }
            return result
        }
    }

    /// A token bound to `binding`'s key, never a bearer one; no memo (each result is signed anew).
    private func lookUpBound(_ binding: PoPBinding, in cache: any TokenCachePort) throws -> CachedToken<MSALResult>? {
        let clientId = engine.settings.clientId
        let found: (token: PoPAccessToken, idToken: String?)? = try cache.read { document in
            for realm in realms {
                if let token = document.findPoPAccessToken(homeAccountId: homeAccountId, environments: environments,
                                                           clientId: clientId, realm: realm, scopes: request.scopes,
                                                           keyId: binding.key.keyId) {
                    return (token, document.idToken(homeAccountId: homeAccountId, environments: environments,
                                                    realm: token.realm, clientId: clientId)?.secret)
                }
            }
            return nil
        }
        guard let found else { return nil }
        let (engine, account, authority, descriptor, correlationId) = (engine, account, authority, descriptor, correlationId)
        let times = CachedTokenTimes(expiresOn: Date(timeIntervalSince1970: TimeInterval(found.token.expiresOn)))
        // A signing failure surfaces as the refresh's: the cached token is then not used.
        guard let result = try? engine.cachedPoPResult(found.token, binding: binding, idToken: found.idToken, account: account,
                                                       authority: authority, descriptor: descriptor,
                                                       correlationId: correlationId) else { return nil }
        return CachedToken(times: times, secret: found.token.secret) { _ in result }
    }

    /// The device's identity broker first, when the application uses one and it holds the account; else the
    /// account's refresh tokens. A proof-of-possession request redeems the refresh token itself.
    func obtain(using cache: any TokenCachePort, redemption: SilentFlowStateMachine) async throws -> MSALResult {
        return try await engine.brokeredSilent(self, cache: cache) {
            try await engine.refresh(self, machine: redemption, cache: cache)
        }
    }
}

extension ClientEngine {
    /// Validates a silent request and settles where it goes: the account, the authority and cloud, and the realms
    /// its token may be cached under (no network, except the first time a domain-named tenant is resolved).
    func userTokenPlan(_ request: SilentRequest) async throws -> UserTokenPlan {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        guard let account = request.account, let homeAccountId = account.identifier else {
            throw MSALErrorInfo.internal(.internalErrorAccountRequired, "A silent request needs an account.",
                                         correlationId: correlationId)
        }
        let authority = try requestAuthority(request.authority, correlationId: correlationId)
        let descriptor = authority.descriptor.rules.silentDescriptor(for: account)
        // Tokens are looked up (and redeemed) only within the cloud of the authority the request goes to; the
        // account's own environment counts only when it is an alias of that cloud.
        let environments = KnownAliases.expand([descriptor.host] + (await resolver.aliases(forEnvironment: descriptor.host)))
        let realms = try await realmsToLookUp(descriptor, requested: authority.descriptor, account: account,
                                              environments: environments, correlationId: correlationId)
        var plan = UserTokenPlan(engine: self, request: request, account: account,
                                 homeAccountId: homeAccountId, authority: authority, descriptor: descriptor,
                                 environments: environments, realms: realms)
        plan.proofOfPossession = try popBinding(request.popScheme, correlationId: correlationId)
        return plan
    }

    /// The realms a cached token may be stored under (``AuthorityRules/silentRealms(for:requested:resolvedTenantId:)``):
    /// a domain-named tenant is resolved for its id (once per process).
    private func realmsToLookUp(_ descriptor: AuthorityDescriptor, requested: AuthorityDescriptor, account: MSALAccount,
                                environments: [String], correlationId: UUID) async throws -> [String] {
        let rules = descriptor.rules
        var tenantId: String?
        if rules.tenantNeedsResolutionForRealm {
            // The id this cache already knows for the domain costs no request; else the metadata tells it, and the
            // cache keeps it for the next process.
            tenantId = try? cache.read { $0.tenantId(forDomainOf: descriptor, hosts: environments) }
            if tenantId == nil {
                tenantId = try await resolve(descriptor, correlationId: correlationId).tenantId
            }
        }
        return rules.silentRealms(for: account, requested: requested, resolvedTenantId: tenantId)
    }
}
