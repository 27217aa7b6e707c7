import Foundation
public import Logging

/// Where and how the token cache is kept.
///
/// On Linux the default is a JSON file in the cross-SDK format that MSAL for Python, .NET and Node share, at
/// `MSALFileTokenCacheStorage.defaultFileURL(environment:)` (under `$XDG_DATA_HOME`, else `~/.local/share`). Set ``storage``
/// to keep the cache elsewhere, for example ``MSALInMemoryTokenCacheStorage`` for a process-local cache.
public final class MSALCacheConfig: @unchecked Sendable {
    /// The keychain sharing group of the keychain token cache (Apple platforms), without the team id: apps of one
    /// team with the same group share sign-in, with each other and with MSAL for iOS/macOS apps. Default
    /// ``defaultKeychainSharingGroup()``. The app needs it in its Keychain Sharing capability. On Linux it has no
    /// effect.
    @MSALLocked public var keychainSharingGroup: String = MSALCacheConfig.defaultKeychainSharingGroup()

    /// The storage of the unified token cache. `nil` (the default) selects the platform default.
    @MSALLocked public var storage: (any MSALTokenCacheStorage)?

    /// The application's own account storages kept in step with MSAL's (``MSALExternalAccountProviding``), in the order
    /// they were added.
    public var externalAccountProviders: [any MSALExternalAccountProviding] { providers }
    @MSALLocked fileprivate var providers: [any MSALExternalAccountProviding] = []

    /// Adds an account storage of the application's own that MSAL keeps in step with its cache.
    public func addExternalAccountProvider(_ provider: any MSALExternalAccountProviding) {
        providers.append(provider)
    }

    init() {}

    /// The default keychain group of MSAL for iOS/macOS: `com.microsoft.adalcache` on iOS (and the other UIKit
    /// platforms), `com.microsoft.identity.universalstorage` on macOS.
    public class func defaultKeychainSharingGroup() -> String {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return "com.microsoft.adalcache"
        #else
        return "com.microsoft.identity.universalstorage"
        #endif
    }

    func copy() -> MSALCacheConfig {
        let copy = MSALCacheConfig()
        copy.keychainSharingGroup = keychainSharingGroup
        copy.storage = storage
        copy.providers = providers
        return copy
    }
}

/// The configuration of a ``MSALPublicClientApplication``: which app registration, redirect URI and authority to use.
///
/// ```swift
/// let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
/// let config = MSALPublicClientApplicationConfig(clientId: "<client id>", redirectUri: nil, authority: authority)
/// let app = try MSALPublicClientApplication(configuration: config)
/// ```
///
/// The application copies the configuration when it is created; later changes have no effect on it.
public class MSALPublicClientApplicationConfig: @unchecked Sendable {
    /// The application (client) id of the app registration.
    @MSALLocked public var clientId: String
    /// The redirect URI. `nil` selects the platform default: `http://localhost` (a loopback redirect on any port)
    /// outside Apple platforms, `msauth.<bundle id>://auth` on Apple platforms.
    @MSALLocked public var redirectUri: String?
    /// The default authority. Defaults to `https://login.microsoftonline.com/common`.
    @MSALLocked public var authority: MSALAuthority
    /// Authorities trusted without validation. B2C authorities must be listed here.
    @MSALLocked public var knownAuthorities: [MSALAuthority] = []
    /// Whether an access token past its expiry but within its extended lifetime may be returned while the service
    /// is unavailable. Default false.
    @MSALLocked public var extendedLifetimeEnabled: Bool = false
    /// Client capabilities, such as `["cp1"]` for continuous access evaluation; sent as the `xms_cc` claim.
    @MSALLocked public var clientApplicationCapabilities: [String]?
    /// Where proof-of-possession tokens' key is kept (``MSALAuthenticationSchemePop``). Nil: a new RSA-2048 key held in
    /// memory for the application's life (``MSALInMemoryPoPKeyStore``); a key kept across launches lets the cached
    /// bound tokens be used again.
    @MSALLocked public var popKeyStore: (any MSALPoPKeyStore)?
    /// Seconds before expiry at which a cached access token is no longer returned. Default 300.
    @MSALLocked public var tokenExpirationBuffer: Double = 300
    /// Whether the result may come from another sovereign cloud (`instance_aware=true`). Default false.
    @MSALLocked public var multipleCloudsSupported: Bool = false
    /// Skips the redirect URI checks. Default false.
    @MSALLocked public var bypassRedirectURIValidation: Bool = false
    /// Extra query parameters sent with every request.
    @MSALLocked public var extraQueryParameters: [String: String] = [:]
    @MSALLocked private var storedSliceConfig: MSALSliceConfig? = nil
    /// A test slice and data center to send requests to: setting it adds its `slice` and `dc` to
    /// ``extraQueryParameters``, as MSAL for iOS/macOS does (`MSALPublicClientApplicationConfig.m:83-97`).
    public var sliceConfig: MSALSliceConfig? {
        get { storedSliceConfig }
        set {
            storedSliceConfig = newValue.flatMap { $0.copy() as? MSALSliceConfig }
            if let newValue { extraQueryParameters.merge(newValue.sliceDictionary) { $1 } }
        }
    }
    /// The HTTP transport. `nil` selects `MSALDefaultHTTPClient.shared` (`MSALNIOHTTPClient` on Linux,
    /// `MSALURLSessionHTTPClient` on Apple platforms).
    @MSALLocked public var httpClient: (any MSALHTTPClient)?
    /// The clock MSAL reads for expiry decisions. `nil` selects the system clock.
    @MSALLocked public var clock: (any MSALClock)?
    /// Whether sign-ins go through the device's identity broker (on Linux, the Microsoft identity broker over
    /// D-Bus): off by default on Linux, as in MSAL for Python and .NET. See ``MSALBrokerOptions``.
    @MSALLocked public var brokerOptions: MSALBrokerOptions = MSALBrokerOptions()
    /// The swift-log `Logger` the application writes to, with the correlation id of each request as metadata
    /// (`msal.correlation_id`). `nil` selects `Logger(label: "com.microsoft.identity.msal")`. MSAL's level,
    /// masking and callback (``MSALGlobalConfig/loggerConfig``) apply on top, as they were when the application
    /// was created.
    @MSALLocked public var logger: Logger?
    /// MSAL's level, masking and callback for this application alone, in place of
    /// ``MSALGlobalConfig/loggerConfig`` (nil: the global settings).
    @MSALLocked package var loggerConfig: MSALLoggerConfig?

    private let cacheConfigValue = MSALCacheConfig()

    /// Token cache settings.
    public var cacheConfig: MSALCacheConfig { cacheConfigValue }

    /// Creates a configuration for `clientId` with the default authority and redirect URI.
    public convenience init(clientId: String) {
        self.init(clientId: clientId, redirectUri: nil, authority: nil)
    }

    /// Creates a configuration.
    public init(clientId: String, redirectUri: String?, authority: MSALAuthority?) {
        self.clientId = clientId
        self.redirectUri = redirectUri
        self.authority = authority ?? MSALPublicClientApplicationConfig.defaultAuthority
        // The default authority URL is a constant and always parses.
    }

    static let defaultAuthority: MSALAuthority = {
        // swiftlint:disable:next force_try
        try! MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
    }()

    /// A snapshot of the settings, taken when an application is created.
    func snapshot() -> MSALPublicClientApplicationConfig {
        let copy = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: redirectUri, authority: authority)
        copy.copySettings(from: self)
        return copy
    }

    /// Takes every setting of `other` but the client id and authority.
    package func copySettings(from other: MSALPublicClientApplicationConfig) {
        let copy = self
        copy.redirectUri = other.redirectUri
        copy.knownAuthorities = other.knownAuthorities
        copy.extendedLifetimeEnabled = other.extendedLifetimeEnabled
        copy.clientApplicationCapabilities = other.clientApplicationCapabilities
        copy.popKeyStore = other.popKeyStore
        copy.tokenExpirationBuffer = other.tokenExpirationBuffer
        copy.multipleCloudsSupported = other.multipleCloudsSupported
        copy.bypassRedirectURIValidation = other.bypassRedirectURIValidation
        copy.extraQueryParameters = other.extraQueryParameters
        copy.storedSliceConfig = other.storedSliceConfig
        copy.httpClient = other.httpClient
        copy.clock = other.clock
        copy.brokerOptions = other.brokerOptions
        copy.logger = other.logger
        copy.loggerConfig = other.loggerConfig
        copy.cacheConfig.keychainSharingGroup = other.cacheConfig.keychainSharingGroup
        copy.cacheConfig.storage = other.cacheConfig.storage
        copy.cacheConfig.providers = other.cacheConfig.providers
    }
}
