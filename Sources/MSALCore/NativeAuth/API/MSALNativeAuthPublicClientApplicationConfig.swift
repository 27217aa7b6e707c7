import Foundation

/// The configuration of a ``MSALNativeAuthPublicClientApplication``: an app registration of a Microsoft Entra
/// External ID tenant with native authentication enabled, the CIAM authority, and the challenge types the app's
/// screens can handle.
///
/// ```swift
/// let config = try MSALNativeAuthPublicClientApplicationConfig(clientId: "<client id>", tenantSubdomain: "contoso",
///                                                               challengeTypes: [.OOB, .password])
/// let nativeAuth = try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: config)
/// ```
///
/// Everything of ``MSALPublicClientApplicationConfig`` applies too (the cache, the transport, the clock, logging).
public final class MSALNativeAuthPublicClientApplicationConfig: MSALPublicClientApplicationConfig, @unchecked Sendable {
    /// The challenge types the app handles; `redirect` is always added.
    @MSALLocked public var challengeTypes: MSALNativeAuthChallengeTypes
    /// The second-factor and registration steps the app handles. Default: none.
    @MSALLocked public var capabilities: MSALNativeAuthCapabilities = []
    /// Adds the app's own `x-` headers to every native-authentication request. Default: none.
    public var requestInterceptor: (any MSALNativeAuthRequestInterceptor)? {
        get { interceptorBox.get()?.interceptor }
        set { interceptorBox.set(newValue.map(NativeAuthInterceptor.init)) }
    }
    private let interceptorBox = LockedBox<NativeAuthInterceptor?>(nil)
    var interceptor: NativeAuthInterceptor? { interceptorBox.get() }

    /// A configuration with a CIAM authority (`https://<tenant>.ciamlogin.com/<tenant>.onmicrosoft.com`, or the
    /// emulator's loopback equivalent), typed `MSALAuthority` as MSAL for iOS/macOS types it: creating the
    /// application throws ``MSALInternalError/internalErrorInvalidParameter`` when it names another kind.
    public init(clientId: String, authority: MSALAuthority, challengeTypes: MSALNativeAuthChallengeTypes) {
        self.challengeTypes = challengeTypes
        super.init(clientId: clientId, redirectUri: nil, authority: authority)
    }

    /// A configuration for the tenant `tenantSubdomain` (`contoso` for `contoso.onmicrosoft.com`): the authority
    /// `https://contoso.ciamlogin.com/contoso.onmicrosoft.com`. Throws ``MSALInternalError/internalErrorInvalidParameter``
    /// for a subdomain that does not make a host name.
    public convenience init(clientId: String, tenantSubdomain: String, challengeTypes: MSALNativeAuthChallengeTypes) throws {
        try self.init(clientId: clientId, authority: Self.authority(tenantSubdomain: tenantSubdomain),
                      challengeTypes: challengeTypes)
    }

    /// `https://<subdomain>.ciamlogin.com`, which the authority completes with `/<subdomain>.onmicrosoft.com`.
    static func authority(tenantSubdomain: String) throws -> MSALCIAMAuthority {
        let label = tenantSubdomain.lowercased()
        let allowed = label.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
        guard !label.isEmpty, label.count <= 63, allowed, label.first != "-", label.last != "-",
              let url = URL(string: "https://\(label).ciamlogin.com") else {
            throw MSALErrorInfo.invalidParameter("The tenant subdomain must be the first label of the tenant's domain (contoso for contoso.onmicrosoft.com).")
        }
        return try MSALCIAMAuthority(url: url)
    }
}
