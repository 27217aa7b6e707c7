import Foundation

extension MSALPublicClientApplication {
    /// Creates an application with this platform's services for what `configuration` leaves unset
    /// (``MSALPlatformServices/platformDefault``).
    ///
    /// Throws ``MSALInternalError/internalErrorInvalidParameter`` for an empty or malformed client id,
    /// ``MSALInternalError/internalErrorInvalidRedirectURI`` for a redirect URI that cannot be used, and
    /// ``MSALInternalError/internalErrorFailedAuthorityValidation`` for a B2C authority that is not in
    /// ``MSALPublicClientApplicationConfig/knownAuthorities``.
    public convenience init(configuration: MSALPublicClientApplicationConfig) throws {
        try self.init(configuration: configuration, platform: .platformDefault)
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
    ///   platforms the system authentication session where AuthenticationServices exists;
    /// - storage: `MSALFileTokenCacheStorage` at its default path.
    public static var platformDefault: MSALPlatformServices {
        MSALPlatformServices(httpClient: DeferredHTTPClient(),
                             webAuthenticator: defaultWebAuthenticator(),
                             cacheStorage: { MSALFileTokenCacheStorage(fileURL: MSALFileTokenCacheStorage.defaultFileURL()) })
    }

    private static func defaultWebAuthenticator() -> (any MSALWebAuthenticator)? {
        #if os(Linux)
        return MSALSystemBrowserWebAuthenticator()
        #elseif canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
        return MSALAuthenticationSessionWebAuthenticator()
        #else
        return nil
        #endif
    }
}

/// The transport MSAL uses when ``MSALPublicClientApplicationConfig/httpClient`` is nil.
public enum MSALDefaultHTTPClient {
    /// `MSALNIOHTTPClient.shared` (async-http-client) on Linux, `MSALURLSessionHTTPClient.shared` on Apple
    /// platforms.
    public static var shared: any MSALHTTPClient {
        #if os(Linux)
        MSALNIOHTTPClient.shared
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
