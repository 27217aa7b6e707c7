import Foundation

/// What an application takes from its platform: the HTTP transport, the user agent of interactive sign-in when
/// ``MSALWebviewParameters/webAuthenticator`` is nil, and the token cache storage when
/// ``MSALCacheConfig/storage`` is nil.
///
/// The `MSAL` module passes its platform's services when an application is created
/// (`MSALPublicClientApplication(configuration:)`): on Linux the async-http-client transport, the system browser
/// with a loopback redirect and the file cache; on Apple platforms `URLSession`, the system authentication
/// session and the file cache. With `MSALCore` alone, pass your own to
/// ``MSALPublicClientApplication/init(configuration:platform:)``. Nothing here is process-wide: each application
/// keeps the services it was created with.
public struct MSALPlatformServices: Sendable {
    /// The transport, used when ``MSALPublicClientApplicationConfig/httpClient`` is nil.
    public var httpClient: any MSALHTTPClient
    /// The user agent, used when the call's ``MSALWebviewParameters/webAuthenticator`` is nil. `nil`: interactive
    /// calls without their own authenticator fail with ``MSALInternalError/internalErrorNoViewController``.
    public var webAuthenticator: (any MSALWebAuthenticator)?
    /// The embedded web view, used for calls whose ``MSALWebviewParameters`` ask for one
    /// (``MSALWebviewType/wkWebView`` or a custom web view). `nil`: those calls fail with
    /// ``MSALInternalError/internalErrorInvalidParameter``.
    public var embeddedWebAuthenticator: (any MSALWebAuthenticator)?
    /// Makes the storage used when ``MSALCacheConfig/storage`` is nil.
    public var cacheStorage: @Sendable () -> any MSALTokenCacheStorage
    /// The way to the device's identity broker, used when ``MSALPublicClientApplicationConfig/brokerOptions`` turn it
    /// on without a transport of their own: on Linux, the `MSAL` module's D-Bus transport. `nil`: no broker.
    public var brokerTransport: (any MSALBrokerTransport)? = nil
    /// The broker app of the device (Microsoft Authenticator on iOS), used when the configuration's
    /// ``MSALBrokerOptions/brokerApp`` is nil and ``MSALGlobalConfig/brokerAvailability`` is `.auto`. `nil`: none.
    public var brokerApp: MSALBrokerApp? = nil
    /// Microsoft's Enterprise SSO extension (Apple platforms), used when the configuration's
    /// ``MSALBrokerOptions/ssoExtension`` is nil and ``MSALGlobalConfig/brokerAvailability`` is `.auto`. `nil`: none.
    public var ssoExtension: (any MSALSSOExtensionPerformer)? = nil
    /// The device's registrations (workplace join), used when ``MSALBrokerOptions/workplaceJoin`` is nil. `nil`:
    /// none (the device reads as not registered).
    public var workplaceJoin: (any MSALWorkplaceJoinStore)? = nil
    /// Where proof-of-possession keys are kept when ``MSALPublicClientApplicationConfig/popKeyStore`` is nil: on
    /// Apple platforms the `MSAL` module's keychain store (MSAL for iOS/macOS's key item). `nil`: in memory.
    public var popKeyStore: (any MSALPoPKeyStore)? = nil
    /// Removes other applications' token caches for a sign-out with ``MSALSignoutParameters/wipeCacheForAllAccounts``
    /// (on macOS the `MSAL` module removes ``MSALWipeCacheForAllAccountsConfig``'s keychain items): given the
    /// locations by display name, the names of those it could not remove. `nil`: none are removed.
    public var wipePartnerCaches: (@Sendable ([String: [String: String]]) -> [String])? = nil
    /// ADAL's legacy cache of the platform's default storage, given its keychain sharing group and whether refresh
    /// tokens are written to it (on iOS the `MSAL` module's ADAL items of the keychain group). `nil`: none.
    package var legacyTokenCache: (@Sendable (_ keychainSharingGroup: String, _ writesRefreshTokens: Bool) -> LegacyTokenCache?)? = nil

    /// Creates platform services. The default storage keeps tokens in memory only.
    public init(httpClient: any MSALHTTPClient, webAuthenticator: (any MSALWebAuthenticator)? = nil,
                embeddedWebAuthenticator: (any MSALWebAuthenticator)? = nil,
                cacheStorage: @escaping @Sendable () -> any MSALTokenCacheStorage = { MSALInMemoryTokenCacheStorage() }) {
        self.httpClient = httpClient
        self.webAuthenticator = webAuthenticator
        self.embeddedWebAuthenticator = embeddedWebAuthenticator
        self.cacheStorage = cacheStorage
    }
}
