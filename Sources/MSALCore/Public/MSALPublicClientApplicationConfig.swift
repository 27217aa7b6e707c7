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

    /// ADAL's serialized token cache (ADAL for macOS's format), read and written beside the unified cache: see
    /// ``MSALSerializedADALCacheProvider``. In MSAL for iOS/macOS a macOS setting; here it works on every platform.
    @MSALLocked public var serializedADALCache: MSALSerializedADALCacheProvider?

    /// Whether a sign-in's refresh token is also written as an ADAL item in the keychain group (iOS), so that ADAL
    /// apps of the group sign the user in silently. Default false, as MSAL for iOS/macOS since 2018, which only reads
    /// ADAL's items there (a user signed in by ADAL still gets silent tokens). ``serializedADALCache`` is always
    /// written, as MSAL seeds it.
    @MSALLocked public var writesLegacyADALRefreshTokens = false

    #if canImport(AppKit) && !canImport(UIKit)
    /// The applications allowed to read a login-keychain ADAL cache without asking the user, as made by
    /// ``createTrustedApplicationList(fromPaths:)``. Kept for code written for MSAL for iOS/macOS: this library keeps
    /// its caches in the data-protection keychain, where access groups decide instead.
    public var trustedApplications: [Any]? {
        get { trusted.get().map { $0 as [Any] } }
        set { trusted.set(newValue?.compactMap { $0 as? URL }) }
    }
    private let trusted = LockedBox<[URL]?>(nil)

    /// The trusted-application list of the applications at `appPaths` and the current one (MSAL for iOS/macOS's
    /// `createTrustedApplicationListFromPaths:error:`): their file URLs. Throws
    /// ``MSALInternalError/internalErrorInvalidParameter`` when a path names nothing.
    public func createTrustedApplicationList(fromPaths appPaths: [String]) throws -> [Any] {
        var list: [URL] = [Bundle.main.bundleURL]
        for path in appPaths {
            guard FileManager.default.fileExists(atPath: path) else {
                throw MSALErrorInfo.invalidParameter("No application at the trusted application path '\(path)'.")
            }
            list.append(URL(fileURLWithPath: path))
        }
        return list
    }
    #endif

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
        copy.take(from: self)
        return copy
    }

    /// Takes every setting of `other`.
    func take(from other: MSALCacheConfig) {
        keychainSharingGroup = other.keychainSharingGroup
        storage = other.storage
        providers = other.providers
        serializedADALCache = other.serializedADALCache
        writesLegacyADALRefreshTokens = other.writesLegacyADALRefreshTokens
        #if canImport(AppKit) && !canImport(UIKit)
        trusted.set(other.trusted.get())
        #endif
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
    /// Nested app authentication: the client id of the hub app that hosts this (nested) app and brokers its
    /// sign-ins. Used only together with ``nestedAuthBrokerRedirectUri``: then every authorization and token request
    /// carries `brk_client_id` and `brk_redirect_uri`, refresh tokens are kept under the hub's client id, and when the
    /// nested redirect URI starts with `brk-` the two pairs are swapped first, as MSAL for iOS/macOS swaps them
    /// (`MSIDRequestParameters.m`, `reverseNestedAuthParametersIfNeeded`).
    @MSALLocked public var nestedAuthBrokerClientId: String?
    /// Nested app authentication: the hub app's redirect URI (see ``nestedAuthBrokerClientId``).
    @MSALLocked public var nestedAuthBrokerRedirectUri: String?
    /// The HTTP transport. `nil` selects `MSALDefaultHTTPClient.shared` (`MSALCurlHTTPClient` on Linux,
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

    /// Creates a configuration for a nested app (nested app authentication): `clientId` and `redirectUri` are the
    /// app's, `nestedAuthBrokerClientId` and `nestedAuthBrokerRedirectUri` its hub's.
    public convenience init(clientId: String, redirectUri: String?, authority: MSALAuthority?,
                            nestedAuthBrokerClientId: String?, nestedAuthBrokerRedirectUri: String?) {
        self.init(clientId: clientId, redirectUri: redirectUri, authority: authority)
        self.nestedAuthBrokerClientId = nestedAuthBrokerClientId
        self.nestedAuthBrokerRedirectUri = nestedAuthBrokerRedirectUri
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
        copy.nestedAuthBrokerClientId = other.nestedAuthBrokerClientId
        copy.nestedAuthBrokerRedirectUri = other.nestedAuthBrokerRedirectUri
        copy.httpClient = other.httpClient
        copy.clock = other.clock
        copy.brokerOptions = other.brokerOptions
        copy.logger = other.logger
        copy.loggerConfig = other.loggerConfig
        copy.cacheConfig.take(from: other.cacheConfig)
    }
}
