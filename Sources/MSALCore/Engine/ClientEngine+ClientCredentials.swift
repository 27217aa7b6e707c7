import Foundation

/// Where an authority's app tokens live: settled once per authority (its first request resolves it), so that a
/// cache hit needs no await.
struct AppTokenTarget: Sendable {
    var resolved: ResolvedAuthority
    /// The tenant id the token endpoint names: the cache `realm`.
    var realm: String
    /// The environments tokens are looked up in (the cloud's aliases).
    var environments: [String]
}

/// A client credentials request (RFC 6749 §4.4): the cached app token of this client, tenant and scopes, else the
/// grant.
struct AppTokenPlan: AcquisitionPlan {
    let engine: ClientEngine
    let request: ClientCredentialsRequest
    let target: AppTokenTarget
    /// A proof-of-possession request's key binding.
    var proofOfPossession: PoPBinding? = nil

    var correlationId: UUID { request.correlationId }
    var forceRefresh: Bool { request.forceRefresh }
    var hasClaims: Bool { request.claims != nil }
    var tokenName: String { "app token" }
    var flightKey: String {
        ["app", target.resolved.metadata.tokenEndpoint.absoluteString.lowercased(),
         Scopes.requestParameter(request.scopes).lowercased(), request.claims ?? "",
         request.forceRefresh ? "force" : ""].joined(separator: "|")
    }
    var lockKey: String { flightKey }
    var lockTimeout: TimeInterval { engine.refreshLockTimeout }

    func lookUp(in cache: any TokenCachePort) async throws -> CachedToken<MSALAppTokenResult>? {
        if let binding = proofOfPossession {
            return try engine.cachedBoundAppToken(request, binding: binding, target: target, cache: cache)
        }
        return try engine.cachedAppToken(request, environments: target.environments, realm: target.realm, cache: cache)
    }

    func obtain(using cache: any TokenCachePort, redemption: SilentFlowStateMachine) async throws -> MSALAppTokenResult {
        try await engine.requestAppToken(request, target: target, cache: cache, proofOfPossession: proofOfPossession)
    }
}

extension ClientEngine {
    /// A cached app token for `request`, with no await and no network; nil when there is none usable (or anything
    /// about the request is off: the full path reports that). Before the authority was resolved in this process,
    /// the lookup that needs no resolution answers.
    func appTokenCacheHit(_ request: ClientCredentialsRequest, cache: (any TokenCachePort)? = nil) -> MSALAppTokenResult? {
        guard !request.forceRefresh, request.claims == nil, request.popScheme == nil, !request.scopes.isEmpty else { return nil }
        let port = cache ?? self.cache
        let descriptor = (request.authority ?? settings.authority).descriptor
        guard let target = appTokenTargets.withLock({ $0[descriptor] }) else {
            return try? appTokenBeforeResolution(request, correlationId: request.correlationId, cache: port)
        }
        return try? cachedAppToken(request, environments: target.environments, realm: target.realm, cache: port)
            .flatMap { policy.isReturnable($0.times, now: clock.now()) ? $0.output(false) : nil }
    }

    /// Client credentials (RFC 6749 §4.4), through the acquisition driver. A valid cached token of a tenant named
    /// by its id is returned before the authority is resolved, so that it costs no request at all in any process.
    func acquireTokenForClient(_ request: ClientCredentialsRequest,
                               cache: (any TokenCachePort)? = nil) async throws -> MSALAppTokenResult {
        let port = cache ?? self.cache
        let correlationId = request.correlationId
        try ClientCredentialScopes.validate(request.scopes, correlationId: correlationId)
        let binding = try popBinding(request.popScheme, correlationId: correlationId)
        if binding == nil, let hit = try appTokenBeforeResolution(request, correlationId: correlationId, cache: port) { return hit }
        let target = try await appTokenTarget(request, correlationId: correlationId)
        var plan = AppTokenPlan(engine: self, request: request, target: target)
        plan.proofOfPossession = binding
        return try await acquisition.run(plan, cache: port)
    }

    /// A cached app token answered before the authority is resolved: looked up under the authority's host (and its
    /// known aliases) and its tenant as given, which is the cache `realm` when the tenant is named by its id
    /// (``AuthorityRules/appTokenRealmIsTenant``).
    private func appTokenBeforeResolution(_ request: ClientCredentialsRequest, correlationId: UUID,
                                          cache: any TokenCachePort) throws -> MSALAppTokenResult? {
        guard !request.forceRefresh, request.claims == nil else { return nil }
        let descriptor = try requestAuthority(request.authority, correlationId: correlationId).descriptor
        guard descriptor.rules.appTokenRealmIsTenant,
              let found = try cachedAppToken(request, environments: KnownAliases.expand([descriptor.host]),
                                             realm: descriptor.tenant, cache: cache),
              policy.isReturnable(found.times, now: clock.now()) else { return nil }
        RequestDiagnostics.current?.noteSource(.cache)
        return found.output(false)
    }

    /// Resolves the request's authority (once per process) and checks it names a tenant.
    private func appTokenTarget(_ request: ClientCredentialsRequest, correlationId: UUID) async throws -> AppTokenTarget {
        let authority = try requestAuthority(request.authority, correlationId: correlationId)
        let descriptor = authority.descriptor
        if let known = appTokenTargets.withLock({ $0[descriptor] }) { return known }
        guard descriptor.rules.namesTenantForAppTokens else {
            throw MSALErrorInfo.invalidParameter(
                "App tokens need a tenant: use an authority that names one (its id or a verified domain), not "
                    + "'\(descriptor.tenant)'.", correlationId: correlationId)
        }
        let resolved = try await resolve(descriptor, correlationId: correlationId)
        let realm = resolved.metadata.tokenEndpoint.pathComponents.dropFirst().first ?? descriptor.tenant
        let target = AppTokenTarget(resolved: resolved, realm: realm,
                                    environments: KnownAliases.expand([resolved.cacheEnvironment] + resolved.aliases))
        appTokenTargets.withLock { memo in
            // Bounded: a daemon serving more tenants than this resolves some of them again.
            if memo.count >= 65_536 { memo.removeAll() }
            memo[descriptor] = target
        }
        return target
    }

    /// The cached app token of this client for `request`'s scopes in `realm`, usable or not.
    fileprivate func cachedAppToken(_ request: ClientCredentialsRequest, environments: [String], realm: String,
                                    cache: any TokenCachePort) throws -> CachedToken<MSALAppTokenResult>? {
        let scopes = request.scopeSet
        guard let entry = try cache.read({ document in
            document.findAppToken(environments: environments, clientId: settings.clientId, realm: realm, scopes: scopes)
        }) else { return nil }
        let (requested, correlationId) = (request.scopes, request.correlationId)
        return CachedToken(times: CachedTokenTimes(entry), secret: entry.secret) { _ in
            MSALAppTokenResult(accessToken: entry.secret, expiresOn: entry.expiresOn, scopes: requested,
                               tenantId: entry.realm, tokenSource: .cache, correlationId: correlationId)
        }
    }

    /// The cached app token bound to `binding`'s key for `request`'s scopes, with a new signed request.
    fileprivate func cachedBoundAppToken(_ request: ClientCredentialsRequest, binding: PoPBinding, target: AppTokenTarget,
                                         cache: any TokenCachePort) throws -> CachedToken<MSALAppTokenResult>? {
        let clientId = settings.clientId
        guard let token = try cache.read({ document in
            document.findPoPAccessToken(homeAccountId: "", environments: target.environments, clientId: clientId,
                                        realm: target.realm, scopes: request.scopes, keyId: binding.key.keyId)
        }) else { return nil }
        let expiresOn = Date(timeIntervalSince1970: TimeInterval(token.expiresOn))
        guard let signed = try? signedRequest(token.secret, binding) else { return nil }
        let (scopes, correlationId) = (request.scopes, request.correlationId)
        return CachedToken(times: CachedTokenTimes(expiresOn: expiresOn), secret: token.secret) { _ in
            MSALAppTokenResult(accessToken: signed, expiresOn: expiresOn, scopes: scopes, tenantId: token.realm,
                               tokenSource: .cache, correlationId: correlationId, authenticationScheme: "Pop")
        }
    }

    /// Sends the client credentials grant, stores the token, and returns it.
    fileprivate func requestAppToken(_ request: ClientCredentialsRequest, target: AppTokenTarget,
                                     cache: any TokenCachePort, proofOfPossession: PoPBinding? = nil) async throws -> MSALAppTokenResult {
        let correlationId = request.correlationId
        let endpoint = target.resolved.metadata.tokenEndpoint
        let grant = ClientCredentialsGrantRequest(
            clientId: settings.clientId, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: request.claims),
            extraParameters: settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 }))
        let throttleKey = [endpoint.absoluteString, settings.clientId, Scopes.requestParameter(request.scopes).lowercased()]
            .joined(separator: "|")
        let response = try await postGrant(grant, endpoint: endpoint, descriptor: target.resolved.descriptor,
                                           correlationId: correlationId, throttleKey: throttleKey,
                                           extraParameters: proofOfPossession?.tokenRequestParameters ?? [])
        let now = clock.now()
        let token = try AppTokenResponse(response, now: now, correlationId: correlationId,
                                         expectsProofOfPossession: proofOfPossession != nil)
        if let proofOfPossession {
            // Bound: kept apart from bearer app tokens, under the key (no home account: an app token).
            let bound = PoPAccessToken(
                homeAccountId: "", environment: target.resolved.cacheEnvironment, clientId: settings.clientId,
                realm: target.realm, target: TokenCacheDocument.pythonTarget(request.scopes.joined(separator: " ")),
                secret: token.accessToken, keyId: proofOfPossession.key.keyId, cachedAt: CacheTimestamp(now).seconds,
                expiresOn: CacheTimestamp(token.expiresOn).seconds, extendedExpiresOn: CacheTimestamp(token.extendedExpiresOn).seconds)
            _ = await cache.storeObtainedToken(log: log(correlationId)) { document in document.savePoPAccessToken(bound) }
            return MSALAppTokenResult(accessToken: try signedRequest(token.accessToken, proofOfPossession), expiresOn: token.expiresOn,
                                      scopes: request.scopes, tenantId: target.realm, tokenSource: .identityProvider,
                                      correlationId: correlationId, authenticationScheme: "Pop")
        }
        let write = TokenCacheDocument.AppTokenWrite(
            environment: target.resolved.cacheEnvironment, clientId: settings.clientId, realm: target.realm,
            target: request.scopes.joined(separator: " "), secret: token.accessToken, cachedAt: now,
            expiresOn: token.expiresOn, extendedExpiresOn: token.extendedExpiresOn, refreshOn: token.refreshOn)
        _ = await cache.storeObtainedToken(log: log(correlationId)) { document in _ = document.saveAppToken(write) }
        return MSALAppTokenResult(accessToken: token.accessToken, expiresOn: token.expiresOn, scopes: request.scopes,
                                  tenantId: target.realm, tokenSource: .identityProvider, correlationId: correlationId)
    }

    /// The parameters that authenticate this confidential client at `tokenEndpoint`.
    func clientAuthentication(tokenEndpoint: URL, descriptor: AuthorityDescriptor,
                              correlationId: UUID) async throws -> [(String, String)] {
        guard let credential = settings.credential else {
            throw MSALErrorInfo.invalidParameter("This application has no client credential.", correlationId: correlationId)
        }
        let request = MSALClientAssertionRequest(clientId: settings.clientId, tokenEndpoint: tokenEndpoint,
                                                 supportsPSS: descriptor.rules.supportsPSS, now: clock.now())
        return try await credential.formParameters(for: request, correlationId: correlationId)
    }

    /// Removes this client's app tokens from the cache.
    func removeTokensForClient(cache: (any TokenCachePort)? = nil) async throws {
        let clientId = settings.clientId
        try await (cache ?? self.cache).update { document in
            _ = document.removeAppTokens(clientId: clientId)
            document.removePoPAppTokens(clientId: clientId)
        }
        appTokenTargets.withLock { $0.removeAll() }
    }
}

/// An app token response, checked: an access token of type Bearer with bounded lifetimes.
struct AppTokenResponse: Sendable {
    var accessToken: String
    var expiresOn: Date
    var extendedExpiresOn: Date
    var refreshOn: Date?

    init(_ response: TokenResponse, now: Date, correlationId: UUID, expectsProofOfPossession: Bool = false) throws {
        guard let accessToken = response.accessToken, !accessToken.isEmpty else {
            throw MSALErrorInfo.invalidResponse("The token response has no access_token.", correlationId: correlationId)
        }
        try response.checkTokenType(expectsProofOfPossession: expectsProofOfPossession, correlationId: correlationId)
        let expiresIn = response.expiresIn ?? 600
        self.accessToken = accessToken
        self.expiresOn = now.addingTimeInterval(expiresIn)
        self.extendedExpiresOn = now.addingTimeInterval(response.extExpiresIn ?? expiresIn)
        self.refreshOn = response.refreshIn.map { now.addingTimeInterval($0) }
    }
}

/// The scopes of an app token request: at least one, none empty, no OpenID Connect scopes (an app token has no
/// user). The identity provider checks the rest (one resource, `/.default`).
enum ClientCredentialScopes {
    static func validate(_ scopes: [String], correlationId: UUID) throws {
        guard !scopes.isEmpty, !scopes.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw MSALErrorInfo.invalidParameter(
                "App token requests need a scope such as \"https://graph.microsoft.com/.default\".", correlationId: correlationId)
        }
        let reserved: Set<String> = ["openid", "profile", "offline_access"]
        if let bad = scopes.first(where: { reserved.contains($0.lowercased()) }) {
            throw MSALErrorInfo.invalidParameter("The scope \(bad) is for user sign-in and cannot be used for an app token.",
                                                 correlationId: correlationId)
        }
    }
}
