import Foundation

/// MSAL for iOS/macOS's check when an application is created on iOS (`MSIDRedirectUriVerifier`): with the broker
/// allowed (``MSALGlobalConfig/brokerAvailability`` `.auto`) and a broker-capable redirect URI
/// (`msauth.<bundle id>://auth`), the app must declare `msauthv2` and `msauthv3` in its Info.plist's
/// `LSApplicationQueriesSchemes`, or it could never find Microsoft Authenticator.
package enum BrokerSchemeCheck {
    /// The schemes an app declares to find the broker.
    package static let requiredQuerySchemes = ["msauthv2", "msauthv3"]

    /// Whether `redirectUri` is broker-capable for `bundleId`: exactly `msauth.<bundle id>://auth`.
    package static func isBrokerCapable(_ redirectUri: String, bundleId: String?) -> Bool {
        guard let bundleId, !bundleId.isEmpty else { return false }
        return redirectUri.lowercased() == "msauth.\(bundleId.lowercased())://auth"
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
