import Foundation
import Dispatch

/// Completion of an app token request: a result, or an error.
public typealias MSALAppTokenCompletionBlock = @Sendable (MSALAppTokenResult?, (any Error)?) -> Void

/// A confidential client application: a web app, web API or daemon that holds a credential
/// (``MSALClientCredential``) and gets tokens as itself (``acquireTokenForClient(with:)``).
///
/// ```swift
/// let app = try MSALConfidentialClientApplication(configuration: config)
/// let token = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(
///     scopes: ["https://graph.microsoft.com/.default"]))
/// request.setValue(token.authorizationHeader, forHTTPHeaderField: "Authorization")
/// ```
///
/// App tokens are cached per tenant and scopes in the application's token cache, in the format MSAL for Python,
/// .NET and Node share; a cached token is returned with no request at all. Every completion-block method has an
/// `async throws` form. The object is safe to use from any task or thread; create one per client id and keep it.
public final class MSALConfidentialClientApplication: Sendable {
    let engine: ClientEngine
    /// The partitioned token cache, when the configuration has one.
    let partitioned: PartitionedCache?
    private let configurationCopy: MSALConfidentialClientApplicationConfig

    /// Creates an application. Throws ``MSALInternalError/internalErrorInvalidParameter`` for an empty or
    /// malformed client id, and ``MSALInternalError/internalErrorFailedAuthorityValidation`` for a B2C authority
    /// that is not in ``MSALConfidentialClientApplicationConfig/knownAuthorities``.
    ///
    /// `platform` supplies what the configuration leaves unset (transport, storage). The `MSAL` module's
    /// `init(configuration:)` passes the platform's own.
    public init(configuration: MSALConfidentialClientApplicationConfig, platform: MSALPlatformServices) throws {
        let snapshot = configuration.snapshot()
        var settings = try EngineSettings(snapshot.engineView())
        settings.credential = snapshot.clientCredential
        let clock = snapshot.clock ?? MSALSystemClock()
        let http = snapshot.httpClient ?? platform.httpClient
        let cache: DocumentCachePort
        if let partitionedConfig = snapshot.partitionedCache {
            // Calls work on a port of their partition each; the application's own document stays empty.
            cache = DocumentCachePort(store: TokenCacheStore(storage: MSALInMemoryTokenCacheStorage(), log: settings.log))
            partitioned = PartitionedCache(config: partitionedConfig, log: settings.log, clock: clock)
        } else {
            let storage = snapshot.cacheConfig.storage ?? platform.cacheStorage()
            cache = DocumentCachePort(store: TokenCacheStore(storage: storage, log: settings.log))
            partitioned = nil
        }
        engine = ClientEngine(settings: settings, http: http, clock: clock, cache: cache)
        configurationCopy = snapshot
    }

    /// A copy of the configuration the application was created with.
    public var configuration: MSALConfidentialClientApplicationConfig { configurationCopy.snapshot() }

    // MARK: App tokens

    /// Gets a token for the application itself (client credentials): from the cache when a valid one is there
    /// (no network), else from the identity provider. Concurrent requests for the same token send one request.
    ///
    /// Errors: ``MSALInternalError/internalErrorInvalidParameter`` for missing scopes or an authority without a
    /// tenant; the provider's `invalid_client` (a wrong secret, certificate or assertion), `unauthorized_client`,
    /// `invalid_scope` and AADSTS codes as ``MSALErrorInfo`` with ``MSALErrorInfo/oauthError`` and
    /// ``MSALErrorInfo/stsErrorCodes``; throttling as ``MSALError/serverError`` with the HTTP status.
    public func acquireTokenForClient(with parameters: MSALClientCredentialParameters) async throws -> MSALAppTokenResult {
        let request = parameters.request()
        let partition = partitioned == nil ? nil : appPartition(request.authority)
        if let port = memoryPort(partition), let hit = engine.appTokenCacheHit(request, cache: port) { return hit }
        return try await ErrorBoundary.run(.clientCredentials, correlationId: request.correlationId) { [self] in
            let port = await self.port(partition)
            return try await engine.measured { try await engine.acquireTokenForClient(request, cache: port) }
        }
    }

    /// Gets a token for the application itself; see ``acquireTokenForClient(with:)``.
    public func acquireTokenForClient(with parameters: MSALClientCredentialParameters,
                                      completionBlock: @escaping MSALAppTokenCompletionBlock) {
        let queue = parameters.completionBlockQueue ?? .global()
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenForClient(with: parameters)
        }
    }

    /// Removes the application's app tokens (every tenant) from its token cache. With a partitioned cache, those of
    /// the partition of the configured authority's tenant.
    public func removeTokensForClient() async throws {
        let correlationId = CorrelationID.next()
        try await ErrorBoundary.run(.accounts, correlationId: correlationId) { [self] in
            let partition = partitioned == nil ? nil : appPartition(nil)
            try await engine.removeTokensForClient(cache: await port(partition))
        }
    }

    /// Removes the application's app tokens; see ``removeTokensForClient()``.
    public func removeTokensForClient(completionBlock: @escaping @Sendable ((any Error)?) -> Void) {
        Task {
            do {
                try await removeTokensForClient()
                completionBlock(nil)
            } catch {
                completionBlock(error)
            }
        }
    }
}

extension MSALConfidentialClientApplication {
    // MARK: On behalf of a user

    /// Gets a token for a downstream API on behalf of the user whose access token this API was called with
    /// (on-behalf-of). A valid token cached for the same incoming token is returned with no request; an expired one
    /// is refreshed with the refresh token obtained for that incoming token; otherwise the incoming token is
    /// exchanged. Validate the incoming token (issuer, audience, signature, expiry, scopes) before calling.
    ///
    /// Errors: ``MSALInternalError/internalErrorInvalidParameter`` for bad scopes or an empty assertion; the
    /// provider's `invalid_grant` (an expired or foreign incoming token), `consent_required` / `interaction_required`
    /// (the user must consent to the downstream API, which the calling client has to handle), `invalid_client` and
    /// AADSTS codes as ``MSALErrorInfo``.
    public func acquireTokenOnBehalfOf(with parameters: MSALOnBehalfOfParameters) async throws -> MSALResult {
        let request = parameters.request()
        return try await ErrorBoundary.run(.clientCredentials, correlationId: request.correlationId) { [self] in
            let port = await self.port(partitioned == nil ? nil : Self.onBehalfOfPartition(request))
            return try await engine.measured { try await engine.acquireTokenOnBehalfOf(request, cache: port) }
        }
    }

    /// Gets a token on behalf of a user; see ``acquireTokenOnBehalfOf(with:)``.
    public func acquireTokenOnBehalfOf(with parameters: MSALOnBehalfOfParameters,
                                       completionBlock: @escaping MSALCompletionBlock) {
        let queue = parameters.completionBlockQueue ?? .global()
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenOnBehalfOf(with: parameters)
        }
    }
}
