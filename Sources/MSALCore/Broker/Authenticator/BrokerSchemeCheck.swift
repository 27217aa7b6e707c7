import Foundation

/// MSAL for iOS/macOS's check when an application is created on iOS (`MSIDRedirectUriVerifier`): with the broker
/// allowed (``MSALGlobalConfig/brokerAvailability`` `.auto`) and a broker-capable redirect URI
/// (`msauth.<bundle id>://auth`), the app must declare `msauthv2` and `msauthv3` in its Info.plist's
/// `LSApplicationQueriesSchemes`, or it could never find Microsoft Authenticator.
package enum BrokerSchemeCheck {
    /// The schemes an app declares to find the broker.
    package static let requiredQuerySchemes = ["msauthv2", "msauthv3"]

    /// Whether `redirectUri` is broker-capable for `bundleId`, as MSAL for iOS/macOS's common core decides
    /// (`IdentityCore/src/util/MSIDRedirectUri.m:73-132`, `redirectUriIsBrokerCapable:`): MSAL's form
    /// `msauth.<bundle id>://auth`, or ADAL's, any scheme with the bundle id as the host
    /// (`x-msauth-app://com.contoso.app`). An `http` or `https` URI never is (the common core's first reason to
    /// refuse one, `MSIDRedirectUri.m:99-103`).
    package static func isBrokerCapable(_ redirectUri: String, bundleId: String?) -> Bool {
        guard let bundleId, !bundleId.isEmpty, let components = URLComponents(string: redirectUri),
              let scheme = components.scheme?.lowercased(), !scheme.isEmpty, scheme != "http", scheme != "https" else {
            return false
        }
        if redirectUri.lowercased() == "msauth.\(bundleId.lowercased())://auth" { return true }
        return components.host?.lowercased() == bundleId.lowercased()
    }

    /// MSAL for iOS/macOS's check of the redirect URI when an application is created (`MSALPublicClientApplication.m:197-208`):
    /// for a Microsoft Entra authority other than `consumers` (one the brokers serve), a redirect URI that is not
    /// broker-capable is refused with ``MSALInternalError/internalErrorInvalidRedirectURI``, unless the validation is
    /// bypassed (then the web view signs in and the brokers are never asked). Apple platforms only: elsewhere the
    /// brokers are not the Apple ones, and the redirect URI is the loopback listener's.
    package static func verifyBrokerCapable(redirectUri: String, bundleId: String?, authority: MSALAuthority,
                                            bypass: Bool) throws {
        let descriptor = authority.descriptor
        guard !bypass, descriptor.kind == .aad, descriptor.tenant.lowercased() != "consumers",
              descriptor.tenant.lowercased() != "adfs", !isBrokerCapable(redirectUri, bundleId: bundleId) else { return }
        throw MSALErrorInfo.internal(
            .internalErrorInvalidRedirectURI,
            "The redirect URI \"\(redirectUri.prefix(256))\" is not broker-capable: use msauth.\(bundleId ?? "<bundle id>")://auth "
                + "(registered for the app in Entra ID and in the Info.plist's CFBundleURLSchemes), or set "
                + "bypassRedirectURIValidation to sign in with the web view only.")
    }

    /// Throws MSAL's error when the app uses a broker-capable redirect URI with the broker allowed, but does not
    /// declare the schemes (`declared`: its `LSApplicationQueriesSchemes`).
    package static func verify(redirectUri: String, bundleId: String?, declared: [String]?,
                               availability: MSALBrokeredAvailability) throws {
        guard availability == .auto, isBrokerCapable(redirectUri, bundleId: bundleId) else { return }
        let declared = Set((declared ?? []).map { $0.lowercased() })
        guard requiredQuerySchemes.allSatisfy(declared.contains) else {
            throw MSALErrorInfo.internal(
                .internalErrorRedirectSchemeNotRegistered,
                "The required query schemes \"msauthv2\" and \"msauthv3\" are not registered in the app's Info.plist "
                    + "file. Add them to LSApplicationQueriesSchemes so that the app can use Microsoft Authenticator.")
        }
    }
}
