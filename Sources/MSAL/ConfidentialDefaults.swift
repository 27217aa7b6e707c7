import Foundation

extension MSALConfidentialClientApplication {
    /// Creates a confidential client application with this platform's transport and, unless
    /// `MSALConfidentialClientApplicationConfig/cacheConfig` names a storage, a token cache in memory (as
    /// MSAL.NET and MSAL for Python do for confidential clients: a server should choose where its tokens live, for
    /// example `MSALFileTokenCacheStorage` to share them with other processes).
    ///
    /// Throws `MSALInternalError/internalErrorInvalidParameter` for an empty or malformed client id, and
    /// `MSALInternalError/internalErrorFailedAuthorityValidation` for a B2C authority that is not in
    /// `MSALConfidentialClientApplicationConfig/knownAuthorities`.
    public convenience init(configuration: MSALConfidentialClientApplicationConfig) throws {
        try self.init(configuration: configuration,
                      platform: MSALPlatformServices(httpClient: DeferredHTTPClient(), webAuthenticator: nil,
                                                     cacheStorage: { MSALInMemoryTokenCacheStorage() }))
    }
}

extension MSALManagedIdentityApplication {
    /// Creates a managed identity application with this platform's transport for what `configuration` leaves
    /// unset, and a token cache in memory unless it names a storage.
    public convenience init(managedIdentity: MSALManagedIdentityId,
                            configuration: MSALManagedIdentityConfig = MSALManagedIdentityConfig()) throws {
        try self.init(managedIdentity: managedIdentity, configuration: configuration,
                      platform: MSALPlatformServices(httpClient: DeferredHTTPClient(), webAuthenticator: nil))
    }
}
