import Crypto
import Foundation

extension ClientEngine {
    /// On-behalf-of: a cached token obtained with the same incoming assertion when one is valid; else its refresh
    /// token; else the JWT bearer grant. What is stored carries the assertion's hash, so that it is found again only
    /// for that assertion. Concurrent requests for the same assertion and scopes share one request.
    func acquireTokenOnBehalfOf(_ request: OnBehalfOfRequest) async throws -> MSALResult {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        let assertion = request.userAssertion.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !assertion.isEmpty, assertion.utf8.count <= 64 * 1024 else {
            throw MSALErrorInfo.invalidParameter("The user assertion must be the incoming access token (at most 64 KiB).",
                                                 correlationId: correlationId)
        }
        let hash = Base64URL.encode(Data(SHA256.hash(data: Data(assertion.utf8))))
        let descriptor = settings.authority.descriptor
        let resolved = try await resolver.resolve(descriptor, knownAuthorities: settings.knownAuthorities, http: http,
                                                  correlationId: correlationId, timeout: settings.http.timeout)
        let key = ["obo", hash, Scopes.requestParameter(request.scopes).lowercased(), request.claims ?? "",
                   request.forceRefresh ? "force" : ""].joined(separator: "|")
        return try await refreshes.run(key) { [self] in
            try await cache.withRefreshLock(key: key, timeout: refreshLockTimeout) { [self] in
                let target = OnBehalfOfTarget(resolved: resolved, assertion: assertion, assertionHash: hash)
                if !request.forceRefresh, request.claims == nil {
                    if let cached = try cachedOnBehalfOf(request, target: target) { return cached }
                    if let refreshed = try await refreshOnBehalfOf(request, target: target) { return refreshed }
                }
                return try await redeemOnBehalfOf(request, target: target)
            }
        }
    }

    /// What one on-behalf-of request settled: the authority, the incoming assertion and its hash, and the user it
    /// names (read without verification, only to find the cache partition; the hash must match too).
    private struct OnBehalfOfTarget {
        var resolved: ResolvedAuthority
        var assertion: String
        var assertionHash: String

        var environments: [String] { KnownAliases.expand([resolved.cacheEnvironment] + resolved.aliases) }
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
    }

    private func cachedOnBehalfOf(_ request: OnBehalfOfRequest, target: OnBehalfOfTarget) throws -> MSALResult? {
        guard let home = target.homeAccountId else { return nil }
        let scopes = ScopeSet(request.scopes)
        let found: (AccessTokenEntry, String?, MSALAccount?)? = try cache.read { document in
            for realm in target.realms {
                if let entry = document.findAccessToken(
                    homeAccountId: home, environments: target.environments, clientId: settings.clientId, realm: realm,
                    scopes: scopes, assertionHash: target.assertionHash,
                    capabilities: TokenCacheDocument.capabilitiesMarker(settings.clientCapabilities)) {
                    let idToken = document.idToken(homeAccountId: home, environments: target.environments,
                                                   realm: entry.realm, clientId: settings.clientId)?.secret
                    return (entry, idToken, buildAccounts(document, homeAccountId: home).first)
                }
            }
            return nil
        }
        guard let (entry, idToken, account) = found else { return nil }
        guard policy.isReturnable(entry, now: clock.now()) else { return nil }
        let resultAccount = account ?? MSALAccount(username: target.claims?.preferredUsername, homeAccountId: home,
                                                   environment: entry.environment, tenantProfiles: nil, claims: nil)
        return cachedResult(entry, idToken: idToken, extended: false, account: resultAccount,
                            authority: settings.authority, descriptor: target.resolved.descriptor,
                            correlationId: request.correlationId)
    }

    /// Redeems the refresh token obtained with the same assertion, if any; nil when there is none or it is no
    /// longer accepted (the caller then uses the assertion itself).
    private func refreshOnBehalfOf(_ request: OnBehalfOfRequest, target: OnBehalfOfTarget) async throws -> MSALResult? {
        guard let home = target.homeAccountId else { return nil }
        let candidates = try cache.read { document in
            document.onBehalfOfRefreshTokens(homeAccountId: home, assertionHash: target.assertionHash,
                                             environments: target.environments, clientId: settings.clientId)
        }
        guard let candidate = candidates.first else { return nil }
        let endpoint = target.resolved.metadata.tokenEndpoint
        let grant = RefreshTokenGrantRequest(
            clientId: settings.clientId, refreshToken: candidate.secret, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: nil),
            extraParameters: settings.extraQueryParameters)
        let authentication = try await clientAuthentication(tokenEndpoint: endpoint, descriptor: target.resolved.descriptor,
                                                            correlationId: request.correlationId)
        let response: TokenResponse
        do {
            response = try await TokenEndpointClient(context: requestContext(request.correlationId))
                .post(endpoint, parameters: grant.formParameters + authentication)
        } catch let error as MSALErrorInfo where error.oauthError == "invalid_grant" {
            log(request.correlationId).info("The on-behalf-of refresh token was refused; using the assertion.")
            return nil
        }
        return try await persistOnBehalfOf(response, request: request, target: target, knownHome: home,
                                           replacing: candidate.key)
    }

    private func redeemOnBehalfOf(_ request: OnBehalfOfRequest, target: OnBehalfOfTarget) async throws -> MSALResult {
        let endpoint = target.resolved.metadata.tokenEndpoint
        let grant = OnBehalfOfGrantRequest(
            clientId: settings.clientId, assertion: target.assertion, scopes: request.scopes,
            claims: RefreshTokenGrantRequest.claims(capabilities: settings.clientCapabilities, requested: request.claims),
            authentication: try await clientAuthentication(tokenEndpoint: endpoint, descriptor: target.resolved.descriptor,
                                                           correlationId: request.correlationId))
        let response = try await TokenEndpointClient(context: requestContext(request.correlationId))
            .post(endpoint, parameters: grant.formParameters)
        return try await persistOnBehalfOf(response, request: request, target: target, knownHome: nil, replacing: nil)
    }

    private func persistOnBehalfOf(_ response: TokenResponse, request: OnBehalfOfRequest, target: OnBehalfOfTarget,
                                   knownHome: String?, replacing: String?) async throws -> MSALResult {
        let correlationId = request.correlationId
        let handler = TokenResponseHandler(
            clientId: settings.clientId, resolved: target.resolved, requestedScopes: request.scopes, nonce: nil,
            knownHomeAccountId: knownHome,
            signature: try await signatureCheck(for: response, resolved: target.resolved, correlationId: correlationId),
            requiresIdToken: false, now: clock.now(), correlationId: correlationId, log: log(correlationId))
        var handled = try handler.handle(response, accountSource: nil, replacingRefreshTokenKey: replacing)
        handled.write.userAssertionHash = target.assertionHash
        return try persistAndMakeResult(handled, authority: settings.authority, knownAccount: nil, correlationId: correlationId)
    }
}
