import Foundation
public import Logging

/// The configuration of a ``MSALConfidentialClientApplication``: a web app, web API or daemon that can keep a
/// credential (a secret, a certificate or a federated assertion) and gets tokens as itself or for its users.
///
/// ```swift
/// let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!)
/// let config = MSALConfidentialClientApplicationConfig(clientId: "<client id>",
///                                                      clientCredential: .secret(secret), authority: authority)
/// let app = try MSALConfidentialClientApplication(configuration: config)
/// let result = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(
///     scopes: ["https://graph.microsoft.com/.default"]))
/// ```
///
/// The application copies the configuration when it is created; later changes have no effect on it.
public final class MSALConfidentialClientApplicationConfig: @unchecked Sendable {
    /// The application (client) id of the app registration.
    @MSALLocked public var clientId: String
    /// How the application proves its identity.
    @MSALLocked public var clientCredential: MSALClientCredential
    /// The default authority: a tenant (its id or a verified domain) for app tokens.
    @MSALLocked public var authority: MSALAuthority
    /// Authorities trusted without validation. B2C authorities must be listed here.
    @MSALLocked public var knownAuthorities: [MSALAuthority] = []
    /// Client capabilities, such as `["cp1"]` for continuous access evaluation; sent as the `xms_cc` claim.
    @MSALLocked public var clientApplicationCapabilities: [String]?
    /// Where proof-of-possession tokens' key is kept (see ``MSALPublicClientApplicationConfig/popKeyStore``).
    @MSALLocked public var popKeyStore: (any MSALPoPKeyStore)?
    /// Seconds before expiry at which a cached access token is no longer returned. Default 300.
    @MSALLocked public var tokenExpirationBuffer: Double = 300
    /// Extra parameters sent with every token request.
    @MSALLocked public var extraQueryParameters: [String: String] = [:]
    /// The HTTP transport. `nil` selects the platform's (see ``MSALPlatformServices``).
    @MSALLocked public var httpClient: (any MSALHTTPClient)?
    /// The clock MSAL reads for expiry decisions. `nil` selects the system clock.
    @MSALLocked public var clock: (any MSALClock)?
    /// The swift-log `Logger` the application writes to (see ``MSALPublicClientApplicationConfig/logger``).
    @MSALLocked public var logger: Logger?
    /// MSAL's logger settings for this application alone (see ``MSALPublicClientApplicationConfig/loggerConfig``).
    @MSALLocked package var loggerConfig: MSALLoggerConfig?

    /// A token cache shared by the application's instances, in partitions (``MSALPartitionedCacheConfig``), such as
    /// the PostgreSQL cache of `MSALPostgresCache`. When set, ``cacheConfig``'s storage is not used. Default nil.
    @MSALLocked public var partitionedCache: MSALPartitionedCacheConfig?

    private let cacheConfigValue = MSALCacheConfig()

    /// Token cache settings. A server usually sets ``MSALCacheConfig/storage`` to an in-memory or shared store.
    public var cacheConfig: MSALCacheConfig { cacheConfigValue }

    /// Creates a configuration. `authority` nil selects `https://login.microsoftonline.com/common`, which suits
    /// user sign-in for multi-tenant web apps; app tokens need a tenant (per request or here).
    public init(clientId: String, clientCredential: MSALClientCredential, authority: MSALAuthority?) {
        self.clientId = clientId
        self.clientCredential = clientCredential
        self.authority = authority ?? MSALPublicClientApplicationConfig.defaultAuthority
    }

    /// A snapshot of the settings, taken when an application is created.
    func snapshot() -> MSALConfidentialClientApplicationConfig {
        let copy = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: clientCredential,
                                                           authority: authority)
        copy.knownAuthorities = knownAuthorities
        copy.clientApplicationCapabilities = clientApplicationCapabilities
        copy.popKeyStore = popKeyStore
        copy.tokenExpirationBuffer = tokenExpirationBuffer
        copy.extraQueryParameters = extraQueryParameters
        copy.httpClient = httpClient
        copy.clock = clock
        copy.logger = logger
        copy.loggerConfig = loggerConfig
        copy.cacheConfig.storage = cacheConfig.storage
        copy.partitionedCache = partitionedCache
        return copy
    }

    /// The public-client view of these settings, from which the shared engine settings are made.
    func engineView() -> MSALPublicClientApplicationConfig {
        let view = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: "http://localhost", authority: authority)
        view.knownAuthorities = knownAuthorities
        view.clientApplicationCapabilities = clientApplicationCapabilities
        view.popKeyStore = popKeyStore
        view.tokenExpirationBuffer = tokenExpirationBuffer
        view.extraQueryParameters = extraQueryParameters
        view.logger = logger
        view.loggerConfig = loggerConfig
        return view
    }
}
