import Foundation

extension MSALNativeAuthPublicClientApplication {
    /// Creates a native-authentication application with this platform's transport and token cache (the same
    /// defaults as `MSALPublicClientApplication.init(configuration:)`).
    public convenience init(nativeAuthConfiguration configuration: MSALNativeAuthPublicClientApplicationConfig) throws {
        try self.init(nativeAuthConfiguration: configuration,
                      platform: .platformDefault(logger: configuration.logger,
                                                 keychainSharingGroup: configuration.cacheConfig.keychainSharingGroup))
    }

    /// Creates a native-authentication application for the tenant `tenantSubdomain` (`contoso` for
    /// `contoso.onmicrosoft.com`, whose authority is `https://contoso.ciamlogin.com`), as MSAL for iOS/macOS's
    /// tutorials do.
    public convenience init(clientId: String, tenantSubdomain: String, challengeTypes: MSALNativeAuthChallengeTypes,
                            redirectUri: String? = nil) throws {
        let configuration = try MSALNativeAuthPublicClientApplicationConfig(clientId: clientId, tenantSubdomain: tenantSubdomain,
                                                                            challengeTypes: challengeTypes)
        configuration.redirectUri = redirectUri
        try self.init(nativeAuthConfiguration: configuration)
    }

    /// Creates a native-authentication application from a public client configuration whose authority is a CIAM
    /// authority (MSAL for iOS/macOS's earlier form).
    public convenience init(configuration: MSALPublicClientApplicationConfig, challengeTypes: MSALNativeAuthChallengeTypes) throws {
        guard let authority = configuration.authority as? MSALCIAMAuthority else {
            throw MSALErrorInfo.invalidParameter("Native authentication needs a CIAM authority (https://<tenant>.ciamlogin.com).")
        }
        let native = MSALNativeAuthPublicClientApplicationConfig(clientId: configuration.clientId, authority: authority,
                                                                 challengeTypes: challengeTypes)
        native.copySettings(from: configuration)
        try self.init(nativeAuthConfiguration: native)
    }
}
