import Foundation

/// Whether the device is in shared-device mode.
public enum MSALDeviceMode: Int, Sendable {
    /// A personal device.
    case `default` = 0
    /// A shared device (requires a broker; never reported outside Apple platforms).
    case shared = 1
}

/// The key of the primary registration's user principal name in ``MSALDeviceInformation/extraDeviceInformation``.
public let MSAL_PRIMARY_REGISTRATION_UPN = "primary_registration_metadata_upn"
/// The key of the primary registration's device id.
public let MSAL_PRIMARY_REGISTRATION_DEVICE_ID = "primary_registration_metadata_device_id"
/// The key of the primary registration's tenant id.
public let MSAL_PRIMARY_REGISTRATION_TENANT_ID = "primary_registration_metadata_tenant_id"
/// The key of the primary registration's cloud.
public let MSAL_PRIMARY_REGISTRATION_CLOUD = "primary_registration_metadata_cloud_host"
/// The key of the primary registration's certificate thumbprint.
public let MSAL_PRIMARY_REGISTRATION_CERTIFICATE_THUMBPRINT = "primary_registration_metadata_certificate_thumbprint"

/// What MSAL knows about the device.
public final class MSALDeviceInformation: Sendable, CustomStringConvertible {
    /// The device mode.
    public let deviceMode: MSALDeviceMode
    /// Whether an enterprise single-sign-on extension is present (Apple platforms only).
    public let hasAADSSOExtension: Bool
    /// Further device information; registration details under the `MSAL_PRIMARY_REGISTRATION_*` keys.
    public let extraDeviceInformationValues: [String: String]
    /// The sign-in method an administrator configured for the shared device (the extension's
    /// `preferred_auth_config`).
    public let configuredPreferredAuthMethod: MSALPreferredAuthMethod
    /// The Platform SSO registration state of a Mac (``MSALPlatformSSOStatus/notEnabled`` elsewhere, and without
    /// the extension).
    public let platformSSOStatus: MSALPlatformSSOStatus

    /// Further device information.
    public var extraDeviceInformation: [AnyHashable: Any] {
        Dictionary(uniqueKeysWithValues: extraDeviceInformationValues.map { (AnyHashable($0.key), $0.value as Any) })
    }

    init(deviceMode: MSALDeviceMode, hasAADSSOExtension: Bool, extraDeviceInformation: [String: String],
         configuredPreferredAuthMethod: MSALPreferredAuthMethod = .none, platformSSOStatus: MSALPlatformSSOStatus = .notEnabled) {
        self.deviceMode = deviceMode
        self.hasAADSSOExtension = hasAADSSOExtension
        self.extraDeviceInformationValues = extraDeviceInformation
        self.configuredPreferredAuthMethod = configuredPreferredAuthMethod
        self.platformSSOStatus = platformSSOStatus
    }

    public var description: String {
        "MSALDeviceInformation(deviceMode: \(deviceMode), hasAADSSOExtension: \(hasAADSSOExtension), "
            + "configuredPreferredAuthMethod: \(configuredPreferredAuthMethod), platformSSOStatus: \(platformSSOStatus), "
            + "extraDeviceInformation: \(extraDeviceInformationValues))"
    }
}
