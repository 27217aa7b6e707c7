public import Foundation
import Dispatch
public import Logging
import MSALSupport

/// The settings of a ``MSALManagedIdentityApplication``.
public final class MSALManagedIdentityConfig: @unchecked Sendable {
    /// The HTTP transport. `nil` selects the platform's.
    @MSALLocked public var httpClient: (any MSALHTTPClient)?
    /// The clock MSAL reads for expiry decisions. `nil` selects the system clock.
    @MSALLocked public var clock: (any MSALClock)?
    /// The swift-log `Logger` the application writes to.
    @MSALLocked public var logger: Logger?
    /// Where tokens are cached. `nil`: in memory.
    @MSALLocked public var cacheStorage: (any MSALTokenCacheStorage)?
    /// The environment the source is found in (`IDENTITY_ENDPOINT`, `IDENTITY_HEADER`, `MSI_ENDPOINT`,
    /// `IMDS_ENDPOINT`, `AZURE_POD_IDENTITY_AUTHORITY_HOST`). `nil`: the process's, read when the application is
    /// created.
    @MSALLocked public var environment: [String: String]?
    /// How long one request to the managed identity endpoint may take, in seconds. Default 30.
    @MSALLocked public var timeout: TimeInterval = 30

    /// Creates default settings.
    public init() {}
}

/// The parameters of ``MSALManagedIdentityApplication/acquireTokenForManagedIdentity(with:)``.
public final class MSALManagedIdentityParameters: MSALParameters, @unchecked Sendable {
    private let box: LockedBox<(resource: String, forceRefresh: Bool, correlationId: UUID?)>

    /// The resource (audience) of the token, such as `https://management.azure.com` or
    /// `https://graph.microsoft.com`.
    public var resource: String {
        get { box.get().resource }
        set { box.withLock { $0.resource = newValue } }
    }
    /// Skips the token cache. Default false.
    public var forceRefresh: Bool {
        get { box.get().forceRefresh }
        set { box.withLock { $0.forceRefresh = newValue } }
    }
    /// The correlation id of the request; nil makes a new one.
    public var correlationId: UUID? {
        get { box.get().correlationId }
        set { box.withLock { $0.correlationId = newValue } }
    }

    /// Parameters for `resource`.
    public init(resource: String) {
        box = LockedBox((resource, false, nil))
        super.init()
    }

    /// Parameters for a single `{resource}/.default` scope; nil for anything else.
    public convenience init?(scopes: [String]) {
        guard let resource = ManagedIdentityEndpoint.resource(fromScopes: scopes) else { return nil }
        self.init(resource: resource)
    }
}

/// Tokens for an Azure managed identity: the identity Azure gives a VM, App Service, Functions app, container or
/// Arc-enabled server, with no credential in the app. The source is found from the environment as MSAL for Python
/// finds it (``MSALManagedIdentitySource``); tokens are cached per identity and resource.
///
/// ```swift
/// let app = try MSALManagedIdentityApplication(managedIdentity: .systemAssigned)
/// let token = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(
///     resource: "https://management.azure.com"))
/// ```
///
/// Errors: ``MSALInternalError/internalErrorInvalidParameter`` for an empty resource, an endpoint variable that is
/// not a URL, or a user-assigned identity the source cannot select; the endpoint's answer (HTTP status, its error)
/// as ``MSALError/serverError`` or ``MSALInternalError/internalErrorUnexpectedHttpResponse``; an answer that is not a
/// token (HTML, no `access_token`) and an Azure Arc challenge outside the agent's directory as
/// ``MSALInternalError/internalErrorInvalidResponse``. IMDS's 404, 410, 429 and 5xx are retried with back-off.
public final class MSALManagedIdentityApplication: Sendable {
    let engine: ManagedIdentityEngine

    /// Creates an application for `managedIdentity`. `platform` supplies the transport when the configuration
    /// has none.
    public convenience init(managedIdentity: MSALManagedIdentityId, configuration: MSALManagedIdentityConfig = MSALManagedIdentityConfig(),
                platform: MSALPlatformServices) throws {
        try self.init(managedIdentity: managedIdentity, configuration: configuration, platform: platform,
                      retry: ManagedIdentityRetryPolicy(), arcDirectory: AzureArcChallenge.linuxTokenDirectory)
    }

    init(managedIdentity: MSALManagedIdentityId, configuration: MSALManagedIdentityConfig, platform: MSALPlatformServices,
         retry: ManagedIdentityRetryPolicy, arcDirectory: String) throws {
        if let id = managedIdentity.userAssigned?.value, id.trimmingCharacters(in: .whitespaces).isEmpty {
            throw MSALErrorInfo.invalidParameter("A user-assigned managed identity needs a non-empty id.")
        }
        let log = MSALLog(logger: configuration.logger ?? Logger(label: MSALLog.label),
                          settings: MSALLog.Settings(MSALGlobalConfig.loggerConfig))
        let storage = configuration.cacheStorage ?? MSALInMemoryTokenCacheStorage()
        engine = ManagedIdentityEngine(
            identity: managedIdentity, environment: configuration.environment ?? ProcessInfo.processInfo.environment,
            http: configuration.httpClient ?? platform.httpClient, clock: configuration.clock ?? MSALSystemClock(),
            cache: DocumentCachePort(store: TokenCacheStore(storage: storage, log: log)), log: log,
            timeout: configuration.timeout > 0 ? configuration.timeout : 30, retry: retry, arcDirectory: arcDirectory)
    }

    /// An application that tries once, with no retry (a probe: is a managed identity endpoint there at all?).
    package static func probe(managedIdentity: MSALManagedIdentityId, configuration: MSALManagedIdentityConfig,
                              platform: MSALPlatformServices) throws -> MSALManagedIdentityApplication {
        try MSALManagedIdentityApplication(managedIdentity: managedIdentity, configuration: configuration, platform: platform,
                                           retry: ManagedIdentityRetryPolicy(maxRetries: 0),
                                           arcDirectory: AzureArcChallenge.linuxTokenDirectory)
    }

    /// Whether an HTTP status from a managed identity endpoint is one that is retried (the endpoint is busy).
    package static func isRetryable(status: Int) -> Bool { ManagedIdentityRetryPolicy.isRetryable(status: status) }

    /// The source tokens come from in this environment.
    public var source: MSALManagedIdentitySource { engine.source }

    /// Gets a token for the managed identity: from the cache when a valid one is there, else from the source.
    /// Concurrent requests for the same resource send one request.
    public func acquireTokenForManagedIdentity(with parameters: MSALManagedIdentityParameters) async throws -> MSALAppTokenResult {
        let resource = parameters.resource
        let forceRefresh = parameters.forceRefresh
        let correlationId = parameters.correlationId ?? CorrelationID.next()
        return try await ErrorBoundary.run(.clientCredentials, correlationId: correlationId) { [engine] in
            let (result, diagnostics) = try await RequestDiagnostics.measure {
                try await engine.acquireToken(resource: resource, forceRefresh: forceRefresh, correlationId: correlationId)
            }
            return result.with(metadata: diagnostics.metadata(defaultSource: result.tokenSource))
        }
    }

    /// Gets a token for the managed identity; see ``acquireTokenForManagedIdentity(with:)``.
    public func acquireTokenForManagedIdentity(with parameters: MSALManagedIdentityParameters,
                                               completionBlock: @escaping MSALAppTokenCompletionBlock) {
        let queue = parameters.completionBlockQueue ?? .global()
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenForManagedIdentity(with: parameters)
        }
    }
}
