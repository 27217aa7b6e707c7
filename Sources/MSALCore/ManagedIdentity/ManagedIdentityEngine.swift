import Foundation

/// The machinery behind ``MSALManagedIdentityApplication``: the source's request, its retries and the Arc
/// handshake, the token cache (per identity and resource), and one request per token at a time.
final class ManagedIdentityEngine: Sendable {
    let identity: MSALManagedIdentityId
    let environment: [String: String]
    let http: any MSALHTTPClient
    let clock: any MSALClock
    let cache: CacheOwner
    let log: MSALLog
    let timeout: TimeInterval
    let retry: ManagedIdentityRetryPolicy
    let arcDirectory: String
    let policy = CachedTokenPolicy(expirationBuffer: 300, extendedLifetimeEnabled: false)
    let requests = SingleFlight<MSALAppTokenResult>()

    /// The environment and realm MSAL for Python files managed identity tokens under.
    static let cacheEnvironment = "managed_identity"

    init(identity: MSALManagedIdentityId, environment: [String: String], http: any MSALHTTPClient, clock: any MSALClock,
         cache: CacheOwner, log: MSALLog, timeout: TimeInterval, retry: ManagedIdentityRetryPolicy = ManagedIdentityRetryPolicy(),
         arcDirectory: String = AzureArcChallenge.linuxTokenDirectory) {
        self.identity = identity
        self.environment = environment
        self.http = TracingHTTPClient.wrapping(http, log: log)
        self.clock = clock
        self.cache = cache
        self.log = log
        self.timeout = timeout
        self.retry = retry
        self.arcDirectory = arcDirectory
    }

    var source: MSALManagedIdentitySource { ManagedIdentityEndpoint.source(in: environment) }

    func acquireToken(resource: String, forceRefresh: Bool, correlationId: UUID) async throws -> MSALAppTokenResult {
        let resource = resource.trimmingCharacters(in: .whitespaces)
        guard !resource.isEmpty, !resource.contains(" ") else {
            throw MSALErrorInfo.invalidParameter(
                "A managed identity token needs one resource, such as https://management.azure.com (or a single /.default scope).",
                correlationId: correlationId)
        }
        if !forceRefresh, let hit = try cached(resource: resource, correlationId: correlationId, allowRefreshOn: false) {
            return hit
        }
        noteRefreshReason(resource: resource, forceRefresh: forceRefresh, correlationId: correlationId)
        let key = [resource.lowercased(), forceRefresh ? "force" : ""].joined(separator: "|")
        return try await requests.run(key) { [self] in
            try await cache.withRefreshLock(key: "mi|" + identity.cacheClientId + "|" + key, timeout: 120) { [self] in
                try await acquireHoldingLock(resource: resource, forceRefresh: forceRefresh, correlationId: correlationId)
            }
        }
    }

    /// The part of ``acquireToken(resource:forceRefresh:correlationId:)`` run once per token across processes.
    private func acquireHoldingLock(resource: String, forceRefresh: Bool,
                                    correlationId: UUID) async throws -> MSALAppTokenResult {
        if !forceRefresh, let hit = try cached(resource: resource, correlationId: correlationId, allowRefreshOn: false) {
            return hit
        }
        do {
            return try await requestToken(resource: resource, correlationId: correlationId)
        } catch {
            if !forceRefresh, let fallback = try? cached(resource: resource, correlationId: correlationId, allowRefreshOn: true) {
                log.with(correlationId: correlationId).warning(
                    "Proactive refresh of a managed identity token failed; returning the still-valid cached token.")
                return fallback
            }
            throw error
        }
    }

    /// Records why no cached token was returned, for the result's metadata, and logs it.
    private func noteRefreshReason(resource: String, forceRefresh: Bool, correlationId: UUID) {
        let scopes = ScopeSet([resource])
        let entry = try? cache.read { document in
            document.findAppToken(environments: [Self.cacheEnvironment], clientId: identity.cacheClientId,
                                  realm: Self.cacheEnvironment, scopes: scopes)
        }
        let now = clock.now()
        let times = entry.flatMap { $0 }.map(CachedTokenTimes.init)
        let reason = policy.refreshReason(times, now: now, forceRefresh: forceRefresh, hasClaims: false)
        CacheDecisionNote.record(reason, times: times, now: now, what: "managed identity token", log: log,
                                 correlationId: correlationId)
    }

    private func cached(resource: String, correlationId: UUID, allowRefreshOn: Bool) throws -> MSALAppTokenResult? {
        let scopes = ScopeSet([resource])
        guard let entry = try cache.read({ document in
            document.findAppToken(environments: [Self.cacheEnvironment], clientId: identity.cacheClientId,
                                  realm: Self.cacheEnvironment, scopes: scopes)
        }) else { return nil }
        guard policy.isReturnable(entry, now: clock.now(), allowingRefreshOn: allowRefreshOn) else { return nil }
        return MSALAppTokenResult(accessToken: entry.secret, expiresOn: entry.expiresOn, scopes: [resource],
                                  tenantId: Self.tenant(of: entry.secret), tokenSource: .cache, correlationId: correlationId)
    }

    private func requestToken(resource: String, correlationId: UUID) async throws -> MSALAppTokenResult {
        let endpoint = try ManagedIdentityEndpoint.make(resource: resource, identity: identity, environment: environment)
        log.with(correlationId: correlationId).info("Requesting a managed identity token from the \(endpoint.source.rawValue) source.")
        var response = try await send(endpoint, correlationId: correlationId)
        if endpoint.source == .azureArc, response.statusCode == 401 {
            let file = try AzureArcChallenge.keyFile(wwwAuthenticate: response.header("WWW-Authenticate"),
                                                     directory: arcDirectory, correlationId: correlationId)
            var answered = endpoint
            answered.headers["Authorization"] = "Basic " + (try AzureArcChallenge.readKey(file, correlationId: correlationId))
            response = try await send(answered, correlationId: correlationId)
        }
        guard (200..<300).contains(response.statusCode) else {
            throw ManagedIdentityResponse.failure(response, source: endpoint.source, correlationId: correlationId)
        }
        let now = clock.now()
        let token = try ManagedIdentityResponse(response, source: endpoint.source, now: now, correlationId: correlationId)
        if endpoint.source == .azureArc {
            try ManagedIdentityResponse.checkArcEcho(response, identity: identity, correlationId: correlationId)
        }
        _ = cache.storeObtainedToken(log: log.with(correlationId: correlationId)) { document in
            _ = document.saveAppToken(TokenCacheDocument.AppTokenWrite(
                environment: Self.cacheEnvironment, clientId: identity.cacheClientId, realm: Self.cacheEnvironment,
                target: resource, secret: token.accessToken, cachedAt: now, expiresOn: token.expiresOn,
                extendedExpiresOn: token.expiresOn, refreshOn: token.refreshOn))
        }
        return MSALAppTokenResult(accessToken: token.accessToken, expiresOn: token.expiresOn, scopes: [resource],
                                  tenantId: Self.tenant(of: token.accessToken), tokenSource: .identityProvider,
                                  correlationId: correlationId)
    }

    /// Sends the request, retrying as ``ManagedIdentityRetryPolicy`` says; returns the final answer (any status).
    private func send(_ endpoint: ManagedIdentityEndpoint, correlationId: UUID) async throws -> MSALHTTPResponse {
        var headers = endpoint.headers
        headers["x-ms-client-request-id"] = correlationId.uuidString.lowercased()
        let request = MSALHTTPRequest(method: endpoint.method, url: endpoint.url, headers: headers, body: endpoint.body,
                                      timeout: timeout)
        var attempt = 0
        while true {
            let response: MSALHTTPResponse
            do {
                response = try await http.send(request).refusingRedirect("The managed identity endpoint",
                                                                         correlationId: correlationId)
            } catch let error as MSALErrorInfo {
                throw error
            } catch where ErrorBoundary.isCancellation(error) || Task.isCancelled {
                throw CancellationError()
            } catch {
                guard let delay = retry.delay(afterAttempt: attempt, retryAfter: nil) else {
                    throw MSALErrorInfo.transport(error, host: endpoint.url.host, correlationId: correlationId)
                }
                attempt += 1
                log.with(correlationId: correlationId).warning(
                    "The \(endpoint.source.rawValue) managed identity endpoint could not be reached; retrying (attempt \(attempt + 1)).")
                try await Task.sleep(nanoseconds: ExternalNumber.nanoseconds(delay))
                continue
            }
            guard ManagedIdentityRetryPolicy.isRetryable(status: response.statusCode),
                  let delay = retry.delay(afterAttempt: attempt,
                                          retryAfter: TokenEndpointClient.retryAfter(response, now: clock.now())) else {
                return response
            }
            attempt += 1
            log.with(correlationId: correlationId).warning(
                "The \(endpoint.source.rawValue) managed identity endpoint answered HTTP \(response.statusCode); retrying (attempt \(attempt + 1)).")
            try await Task.sleep(nanoseconds: ExternalNumber.nanoseconds(delay))
        }
    }

    /// The `tid` of a JWT access token, or "" when it is not one.
    static func tenant(of token: String) -> String {
        (try? IdToken(raw: token))?.tid ?? ""
    }
}
