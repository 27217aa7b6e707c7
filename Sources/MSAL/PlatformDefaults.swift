import Foundation
public import Logging

extension MSALPublicClientApplication {
    /// Creates an application with this platform's services for what `configuration` leaves unset
    /// (`MSALPlatformServices/platformDefault`).
    ///
    /// Throws `MSALInternalError/internalErrorInvalidParameter` for an empty or malformed client id,
    /// `MSALInternalError/internalErrorInvalidRedirectURI` for a redirect URI that cannot be used, and
    /// `MSALInternalError/internalErrorFailedAuthorityValidation` for a B2C authority that is not in
    /// `MSALPublicClientApplicationConfig/knownAuthorities`, and on iOS
    /// `MSALInternalError/internalErrorRedirectSchemeNotRegistered` when the redirect URI is `msauth.<bundle id>://auth`
    /// and the app does not declare `msauthv2` and `msauthv3` in `LSApplicationQueriesSchemes` (the broker allowed).
    /// On Apple platforms, as MSAL for iOS/macOS, `MSALInternalError/internalErrorInvalidRedirectURI` for a Microsoft
    /// Entra authority (not `consumers`) with a redirect URI that is not broker-capable (`msauth.<bundle id>://auth`),
    /// unless `MSALPublicClientApplicationConfig/bypassRedirectURIValidation` is set.
    public convenience init(configuration: MSALPublicClientApplicationConfig) throws {
        #if canImport(Darwin)
        // As MSAL for iOS/macOS: a Microsoft Entra authority needs a broker-capable redirect URI
        // (internalErrorInvalidRedirectURI otherwise), unless the validation is bypassed. Checked where the app has a
        // bundle identifier (every app on an Apple platform).
        if let bundleId = configuration.brokerOptions.bundleIdentifier ?? Bundle.main.bundleIdentifier,
           let redirectUri = configuration.redirectUri {
            try BrokerSchemeCheck.verifyBrokerCapable(redirectUri: redirectUri, bundleId: bundleId,
                                                      authority: configuration.authority,
                                                      bypass: configuration.bypassRedirectURIValidation)
        }
        #endif
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        // As MSAL for iOS/macOS checks it: a broker-capable redirect URI with the broker allowed needs the schemes
        // that find Microsoft Authenticator (internalErrorRedirectSchemeNotRegistered otherwise).
        if !configuration.bypassRedirectURIValidation { try BrokerSchemeCheck.verify(
            redirectUri: configuration.redirectUri ?? "msauth.\(Bundle.main.bundleIdentifier ?? "")://auth",
            bundleId: Bundle.main.bundleIdentifier,
            declared: Bundle.main.object(forInfoDictionaryKey: "LSApplicationQueriesSchemes") as? [String],
            availability: MSALGlobalConfig.brokerAvailability) }
        #endif
        try self.init(configuration: configuration,
                      platform: .platformDefault(logger: configuration.logger,
                                                 keychainSharingGroup: configuration.cacheConfig.keychainSharingGroup))
    }

    /// Creates an application for `clientId` with the default authority (`https://login.microsoftonline.com/common`).
    public convenience init(clientId: String) throws {
        try self.init(configuration: MSALPublicClientApplicationConfig(clientId: clientId))
    }
}

extension MSALPlatformServices {
    /// This platform's services, made afresh for each application:
    /// - transport: ``MSALDefaultHTTPClient/shared``, set up on the first request (an application that answers from
    ///   its cache never creates it);
    /// - user agent: on Linux an `MSALSystemBrowserWebAuthenticator` (system browser, loopback redirect); on Apple
    ///   platforms the system authentication session where AuthenticationServices exists, and an embedded web view
    ///   (`MSALEmbeddedWebviewAuthenticator`) where WebKit exists, for calls that ask for one;
    /// - storage: on Linux an `MSALSecureTokenCacheStorage` (the cache encrypted at rest: Secret Service, else an
    ///   encrypted file keyed from the kernel keyring or a key file; plaintext only when allowed), chosen when the
    ///   application is created; on Apple platforms an `MSALKeychainTokenCacheStorage` (the keychain, in MSAL for
    ///   iOS/macOS's item layout, in the default keychain sharing group);
    /// - broker (Linux): an `MSALDBusBrokerTransport` on the session bus, used only when
    ///   `MSALPublicClientApplicationConfig.brokerOptions` turn the broker on.
    public static var platformDefault: MSALPlatformServices { platformDefault(logger: nil) }

    /// This platform's services, with the storage chain (on Linux) logging its choice to `logger` (MSAL's default
    /// logger when nil), and the keychain cache (Apple platforms) in `keychainSharingGroup`.
    public static func platformDefault(
        logger: Logger?,
        keychainSharingGroup: String = MSALCacheConfig.defaultKeychainSharingGroup()
    ) -> MSALPlatformServices {
        var services = MSALPlatformServices(
            httpClient: DeferredHTTPClient(), webAuthenticator: defaultWebAuthenticator(),
            embeddedWebAuthenticator: defaultEmbeddedWebAuthenticator(),
            cacheStorage: { defaultCacheStorage(logger: logger, keychainSharingGroup: keychainSharingGroup) })
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        // Microsoft Authenticator (app to app), used while MSALGlobalConfig.brokerAvailability is .auto.
        services.brokerApp = MSALBrokerApp(opener: MSALAuthenticatorAppOpener(),
                                           keyStore: MSALKeychainBrokerKeyStore(keychainSharingGroup: keychainSharingGroup))
        // ADAL's items of the keychain group beside the unified cache, as MSAL for iOS/macOS reads them on iOS (its
        // legacy accessor): a user ADAL signed in gets silent tokens.
        services.legacyTokenCache = { group, writes in
            LegacyTokenCache(store: KeychainLegacyTokenCacheStore(keychainSharingGroup: group), forIOS: true,
                             writesRefreshTokens: writes)
        }
        #endif
        #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
        // Microsoft's Enterprise SSO extension, asked first where an MDM profile configured it.
        services.ssoExtension = MSALSSOExtensionAuthorization()
        #endif
        #if canImport(Security)
        // The device's registration where Authenticator and Company Portal keep it (PKeyAuth, device tokens).
        services.workplaceJoin = MSALKeychainWorkplaceJoinStore()
        // Proof-of-possession keys in MSAL for iOS/macOS's key item, so an app moving from it keeps its key.
        services.popKeyStore = MSALKeychainPoPKeyStore(keychainSharingGroup: keychainSharingGroup)
        // Other applications' caches a sign-out that wipes every account removes (macOS's list; none elsewhere).
        services.wipePartnerCaches = { PartnerCacheWipe.remove($0) }
        #endif
        #if os(Linux)
        // The Microsoft identity broker on the session bus, used only when the configuration turns it on
        // (MSALBrokerOptions.enabledOnLinux).
        services.brokerTransport = MSALDBusBrokerTransport()
        #endif
        return services
    }

    private static func defaultCacheStorage(logger: Logger?, keychainSharingGroup: String) -> any MSALTokenCacheStorage {
        #if canImport(Security)
        return MSALKeychainTokenCacheStorage(keychainSharingGroup: keychainSharingGroup)
        #elseif os(Linux)
        return MSALSecureTokenCacheStorage(configuration: MSALSecureTokenCacheConfig(), logger: logger)
        #else
        return MSALFileTokenCacheStorage(fileURL: MSALFileTokenCacheStorage.defaultFileURL())
        #endif
    }

    private static func defaultEmbeddedWebAuthenticator() -> (any MSALWebAuthenticator)? {
        #if canImport(WebKit) && (canImport(UIKit) || canImport(AppKit))
        return MSALEmbeddedWebviewAuthenticator()
        #else
        return nil
        #endif
    }

    private static func defaultWebAuthenticator() -> (any MSALWebAuthenticator)? {
        #if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
        return MSALAuthenticationSessionWebAuthenticator()
        #elseif os(Linux)
        return MSALSystemBrowserWebAuthenticator()
        #else
        return nil
        #endif
    }
}

/// The transport MSAL uses when `MSALPublicClientApplicationConfig/httpClient` is nil.
public enum MSALDefaultHTTPClient {
    /// `MSALCurlHTTPClient.shared` (the system's libcurl) on Linux, `MSALURLSessionHTTPClient.shared` on Apple
    /// platforms.
    public static var shared: any MSALHTTPClient {
        #if os(Linux)
        MSALCurlHTTPClient.shared
        #else
        MSALURLSessionHTTPClient.shared
        #endif
    }
}

/// ``MSALDefaultHTTPClient/shared``, resolved on the first request rather than when the application is created.
struct DeferredHTTPClient: MSALHTTPClient {
    /// The transport requests go to.
    var resolved: any MSALHTTPClient { MSALDefaultHTTPClient.shared }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        try await resolved.send(request)
    }
}
