public import Foundation

/// The parameters of ``MSALPublicClientApplication/getDeviceToken(with:completionBlock:)``: a token for the device
/// itself (no user), for `resource`, in the tenant the device is registered in.
public final class MSALDeviceTokenParameters: MSALTokenParameters, @unchecked Sendable {
    /// The tenant of the device's registration.
    public let tenantId: String?
    /// The resource the token is for, such as `https://graph.microsoft.com`.
    public let resource: String

    /// Parameters for `resource` and `scopes` in `tenantId`; nil when `resource` or `tenantId` is blank, as in MSAL
    /// for iOS/macOS.
    public init?(resource: String, scopes: [String]?, forTenantId tenantId: String) {
        guard !resource.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
              !tenantId.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        self.resource = resource
        self.tenantId = tenantId
        super.init(scopes: scopes ?? [])
    }
}

/// A token for the device itself: never cached, never carrying a refresh or id token.
public final class MSALDeviceTokenResult: Sendable, CustomStringConvertible {
    /// The access token.
    public let accessToken: String
    /// What the identity platform said about the device (its `device_info`), if anything.
    public let deviceInformation: String?
    /// When the token expires.
    public let expiresOn: Date?
    /// The scopes granted.
    public let scopes: [String]
    /// The authority that issued it.
    public let authority: MSALAuthority?

    /// A result.
    public init(accessToken: String, deviceInformation: String?, expiresOn: Date?, scopes: [String],
                authority: MSALAuthority?) {
        self.accessToken = accessToken
        self.deviceInformation = deviceInformation
        self.expiresOn = expiresOn
        self.scopes = scopes
        self.authority = authority
    }

    public var description: String {
        "MSALDeviceTokenResult(accessToken: <redacted>, expiresOn: \(expiresOn.map(String.init(describing:)) ?? "nil"), "
            + "scopes: \(scopes), authority: \(authority.map { $0.url.absoluteString } ?? "nil"))"
    }
}

/// Completion of the device-token calls.
public typealias MSALDeviceTokenResultCompletionBlock = (MSALDeviceTokenResult?, (any Error)?) -> Void
