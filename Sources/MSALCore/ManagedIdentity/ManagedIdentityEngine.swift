import Foundation

/// The machinery behind ``MSALManagedIdentityApplication``: the source's request, its retries and the Arc
/// handshake, the token cache (per identity and resource), and one request per token at a time.
final class ManagedIdentityEngine: Sendable {
    let identity: MSALManagedIdentityId
    let environment: [String: String]
    let http: any MSALHTTPClient
    let clock: any MSALClock
    let cache: DocumentCachePort
    let log: MSALLog
    let timeout: TimeInterval
    let retry: ManagedIdentityRetryPolicy
    let arcDirectory: String
    let acquisition: TokenAcquisition

    /// The environment and realm MSAL for Python files managed identity tokens under.
    static let cacheEnvironment = "managed_identity"

    init(identity: MSALManagedIdentityId, environment: [String: String], http: any MSALHTTPClient, clock: any MSALClock,
         cache: DocumentCachePort, log: MSALLog, timeout: TimeInterval, retry: ManagedIdentityRetryPolicy = ManagedIdentityRetryPolicy(),
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
        self.acquisition = TokenAcquisition(
            policy: CachedTokenPolicy(expirationBuffer: 300, extendedLifetimeEnabled: false), clock: clock, log: log,
            flights: SingleFlight())
    }

    var source: MSALManagedIdentitySource { ManagedIdentityEndpoint.source(in: environment) }

    func acquireToken(resource: String, forceRefresh: Bool, correlationId: UUID) async throws -> MSALAppTokenResult {
        let resource = resource.trimmingCharacters(in: .whitespaces)
        guard !resource.isEmpty, !resource.contains(" ") else {
            throw MSALErrorInfo.invalidParameter(
                "A managed identity token needs one resource, such as https://management.azure.com (or a single /.default scope).",
                correlationId: correlationId)
        }
        let plan = ManagedIdentityPlan(engine: self, resource: resource, forceRefresh: forceRefresh,
                                       correlationId: correlationId)
        return try await acquisition.run(plan, cache: cache)
    }

    /// The cached token of this identity for `resource`, usable or not.
    fileprivate func cached(resource: String, correlationId: UUID,
                            cache: any TokenCachePort) throws -> CachedToken<MSALAppTokenResult>? {
        let scopes = ScopeSet([resource])
        let clientId = identity.cacheClientId
        guard let entry = try cache.read({ document in
            document.findAppToken(environments: [Self.cacheEnvironment], clientId: clientId,
                                  realm: Self.cacheEnvironment, scopes: scopes)
        }) else { return nil }
        return CachedToken(times: CachedTokenTimes(entry), secret: entry.secret) { _ in
            MSALAppTokenResult(accessToken: entry.secret, expiresOn: entry.expiresOn, scopes: [resource],
                               tenantId: Self.tenant(of: entry.secret), tokenSource: .cache, correlationId: correlationId)
        }
    }

    fileprivate func requestToken(resource: String, correlationId: UUID,
                                  cache: any TokenCachePort) async throws -> MSALAppTokenResult {
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
        let write = TokenCacheDocument.AppTokenWrite(
            environment: Self.cacheEnvironment, clientId: identity.cacheClientId, realm: Self.cacheEnvironment,
            target: resource, secret: token.accessToken, cachedAt: now, expiresOn: token.expiresOn,
            extendedExpiresOn: token.expiresOn, refreshOn: token.refreshOn)
        _ = await cache.storeObtainedToken(log: log.with(correlationId: correlationId)) { document in
            _ = document.saveAppToken(write)
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
                try await clock.sleep(seconds: delay)
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
            try await clock.sleep(seconds: delay)
        }
    }

    /// The `tid` of a JWT access token, or "" when it is not one.
    static func tenant(of token: String) -> String {
        (try? IdToken(raw: token))?.tid ?? ""
    }
}

/// A managed identity token request: the cached token of the identity for the resource, else the source's endpoint
/// (with its retries and the Azure Arc handshake).
struct ManagedIdentityPlan: AcquisitionPlan {
    let engine: ManagedIdentityEngine
    let resource: String
    let forceRefresh: Bool
    let correlationId: UUID

    var hasClaims: Bool { false }
    var tokenName: String { "managed identity token" }
    var flightKey: String { ["mi", engine.identity.cacheClientId, resource.lowercased(), forceRefresh ? "force" : ""]
        .joined(separator: "|") }
    var lockKey: String { flightKey }
    var lockTimeout: TimeInterval { 120 }

    func lookUp(in cache: any TokenCachePort) async throws -> CachedToken<MSALAppTokenResult>? {
        try engine.cached(resource: resource, correlationId: correlationId, cache: cache)
    }

    func obtain(using cache: any TokenCachePort, redemption: SilentFlowStateMachine) async throws -> MSALAppTokenResult {
        try await engine.requestToken(resource: resource, correlationId: correlationId, cache: cache)
    }
}
