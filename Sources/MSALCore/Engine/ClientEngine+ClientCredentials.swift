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

extension ClientEngine {
    /// A cached app token for `request`, with no await and no network; nil when there is none usable (or anything
    /// about the request is off: the full path reports that). Before the authority was resolved in this process,
    /// the lookup that needs no resolution (``appTokenBeforeResolution(_:correlationId:)``) answers.
    func appTokenCacheHit(_ request: ClientCredentialsRequest) -> MSALAppTokenResult? {
        guard !request.forceRefresh, request.claims == nil, !request.scopes.isEmpty else { return nil }
        let descriptor = (request.authority ?? settings.authority).descriptor
        guard let target = appTokenTargets.withLock({ $0[descriptor] }) else {
            return try? appTokenBeforeResolution(request, correlationId: request.correlationId)
        }
        return try? cachedAppToken(request, target: target, allowRefreshOn: false)
    }

    /// Client credentials (RFC 6749 §4.4): the cached app token of this client, tenant and scopes, else a new
    /// one. Concurrent requests for the same token share one token request.
    func acquireTokenForClient(_ request: ClientCredentialsRequest) async throws -> MSALAppTokenResult {
        let correlationId = request.correlationId
        try ClientCredentialScopes.validate(request.scopes, correlationId: correlationId)
        if let hit = try appTokenBeforeResolution(request, correlationId: correlationId) { return hit }
        let target = try await appTokenTarget(request, correlationId: correlationId)
        if !request.forceRefresh, request.claims == nil,
           let hit = try cachedAppToken(request, target: target, allowRefreshOn: false) {
            return hit
        }
        noteAppTokenRefreshReason(request, target: target)
        let key = [target.resolved.metadata.tokenEndpoint.absoluteString.lowercased(),
                   Scopes.requestParameter(request.scopes).lowercased(), request.claims ?? "",
                   request.forceRefresh ? "force" : ""].joined(separator: "|")
        return try await appTokenRequests.run(key) { [self] in
            try await cache.withRefreshLock(key: "app|" + key, timeout: refreshLockTimeout) { [self] in
                try await acquireAppTokenHoldingLock(request, target: target)
            }
        }
    }

    /// The part of ``acquireTokenForClient(_:)`` run once per token across processes: the cache again (another
    /// request or process may have stored the token while this one waited), else a token request.
    private func acquireAppTokenHoldingLock(_ request: ClientCredentialsRequest,
                                            target: AppTokenTarget) async throws -> MSALAppTokenResult {
        if !request.forceRefresh, request.claims == nil,
           let hit = try cachedAppToken(request, target: target, allowRefreshOn: false) {
            return hit
        }
        do {
            return try await requestAppToken(request, target: target)
        } catch {
            // A token whose refresh_on passed is still valid: keep serving it while the provider fails.
            if let fallback = try? cachedAppToken(request, target: target, allowRefreshOn: true),
               !request.forceRefresh, request.claims == nil {
                log(request.correlationId).warning(
                    "Proactive refresh of an app token failed; returning the still-valid cached token.")
                return fallback
            }
            throw error
        }
    }

    /// A cached app token answered before the authority is resolved, so that a valid cached token costs no request
    /// at all, in every process (as a cached user token): looked up under the authority's host (and its known
    /// aliases) and its tenant as given, which is the cache `realm` when the tenant is named by its id. A tenant
    /// named by a domain is stored under its id, which only resolution tells: that lookup waits for it.
    func appTokenBeforeResolution(_ request: ClientCredentialsRequest, correlationId: UUID) throws -> MSALAppTokenResult? {
        guard !request.forceRefresh, request.claims == nil else { return nil }
        let descriptor = try requestAuthority(request.authority, correlationId: correlationId).descriptor
        guard descriptor.kind != .b2c, descriptor.tenantKind == .specific else { return nil }
        let environments = KnownAliases.expand([descriptor.host])
        let scopes = request.scopeSet
        guard let entry = try cache.read({ document in
            document.findAppToken(environments: environments, clientId: settings.clientId, realm: descriptor.tenant,
                                  scopes: scopes)
        }), policy.isReturnable(entry, now: clock.now(), allowingRefreshOn: false) else { return nil }
        return MSALAppTokenResult(accessToken: entry.secret, expiresOn: entry.expiresOn, scopes: request.scopes,
                                  tenantId: entry.realm, tokenSource: .cache, correlationId: correlationId)
    }

    /// Resolves the request's authority (once per process) and checks it names a tenant.
    private func appTokenTarget(_ request: ClientCredentialsRequest, correlationId: UUID) async throws -> AppTokenTarget {
        let authority = try requestAuthority(request.authority, correlationId: correlationId)
        let descriptor = authority.descriptor
        if let known = appTokenTargets.withLock({ $0[descriptor] }) { return known }
        if descriptor.kind == .aad, descriptor.tenantKind != .specific {
            throw MSALErrorInfo.invalidParameter(
                "App tokens need a tenant: use an authority that names one (its id or a verified domain), not "
                    + "'\(descriptor.tenant)'.", correlationId: correlationId)
        }
        let resolved = try await resolver.resolve(descriptor, knownAuthorities: settings.knownAuthorities, http: http,
                                                  correlationId: correlationId, timeout: settings.http.timeout)
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

    /// The cached token when the policy allows returning it (`allowRefreshOn`: also when its `refresh_on` passed).
    private func cachedAppToken(_ request: ClientCredentialsRequest, target: AppTokenTarget,
                                allowRefreshOn: Bool) throws -> MSALAppTokenResult? {
        let scopes = request.scopeSet
        guard let entry = try cache.read({ document in
            document.findAppToken(environments: target.environments, clientId: settings.clientId, realm: target.realm,
                                  scopes: scopes)
        }) else { return nil }
        guard policy.isReturnable(entry, now: clock.now(), allowingRefreshOn: allowRefreshOn) else { return nil }
        return MSALAppTokenResult(accessToken: entry.secret, expiresOn: entry.expiresOn, scopes: request.scopes,
                                  tenantId: entry.realm, tokenSource: .cache, correlationId: request.correlationId)
    }

    /// Sends the client credentials grant, stores the token, and returns it.
    private func requestAppToken(_ request: ClientCredentialsRequest, target: AppTokenTarget) async throws -> MSALAppTokenResult {
        let correlationId = request.correlationId
        let endpoint = target.resolved.metadata.tokenEndpoint
        let authentication = try await clientAuthentication(tokenEndpoint: endpoint, descriptor: target.resolved.descriptor,
                                                            correlationId: correlationId)
        let grant = ClientCredentialsGrantRequest(
            clientId: settings.clientId, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: request.claims),
            authentication: authentication,
            extraParameters: settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 }))
        let throttleKey = [endpoint.absoluteString, settings.clientId, Scopes.requestParameter(request.scopes).lowercased()]
            .joined(separator: "|")
        let response = try await TokenEndpointClient(context: requestContext(correlationId))
            .post(endpoint, parameters: grant.formParameters, throttleKey: throttleKey)
        let now = clock.now()
        let token = try AppTokenResponse(response, now: now, correlationId: correlationId)
        _ = cache.storeObtainedToken(log: log(correlationId)) { document in
            _ = document.saveAppToken(TokenCacheDocument.AppTokenWrite(
                environment: target.resolved.cacheEnvironment, clientId: settings.clientId, realm: target.realm,
                target: request.scopes.joined(separator: " "), secret: token.accessToken, cachedAt: now,
                expiresOn: token.expiresOn, extendedExpiresOn: token.extendedExpiresOn, refreshOn: token.refreshOn))
        }
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
                                                 supportsPSS: descriptor.kind == .aad || descriptor.kind == .ciam,
                                                 now: clock.now())
        return try await credential.formParameters(for: request, correlationId: correlationId)
    }

    /// Removes this client's app tokens from the cache.
    func removeTokensForClient() throws {
        try cache.update { document in _ = document.removeAppTokens(clientId: settings.clientId) }
        appTokenTargets.withLock { $0.removeAll() }
    }
}

/// An app token response, checked: an access token of type Bearer with bounded lifetimes.
struct AppTokenResponse: Sendable {
    var accessToken: String
    var expiresOn: Date
    var extendedExpiresOn: Date
    var refreshOn: Date?

    init(_ response: TokenResponse, now: Date, correlationId: UUID) throws {
        guard let accessToken = response.accessToken, !accessToken.isEmpty else {
            throw MSALErrorInfo.invalidResponse("The token response has no access_token.", correlationId: correlationId)
        }
        guard let tokenType = response.tokenType, tokenType.caseInsensitiveCompare("Bearer") == .orderedSame else {
            throw MSALErrorInfo.invalidResponse("The token response is not a Bearer token.", correlationId: correlationId)
        }
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
