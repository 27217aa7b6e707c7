import Foundation

// Values of the broker and device settings of MSAL for iOS/macOS 2.14 (`MSALDefinitions.h`,
// `MSALPublicClientStatusNotifications.h`), with the same raw values.

/// The sign-in method an administrator configured for a shared device, or that an interactive request asks for
/// (``MSALInteractiveTokenParameters/preferredAuthMethod``).
public enum MSALPreferredAuthMethod: UInt, Sendable {
    /// No preferred method.
    case none = 0
    /// A QR code and a PIN (shared devices); sent to the identity platform as `pc=18`.
    case QRPIN = 1
}

/// The Platform SSO registration state of a Mac, as Microsoft's Enterprise SSO extension reports it
/// (``MSALDeviceInformation/platformSSOStatus``).
public enum MSALPlatformSSOStatus: UInt, Sendable {
    /// Platform SSO is not enabled (also what any other value reads as).
    case notEnabled = 0
    /// Enabled, but the device is not registered.
    case enabledNotRegistered = 1
    /// Enabled and registered.
    case enabledAndRegistered = 2
    /// The registration needs repair.
    case registrationNeedsRepair = 3

    /// The status of the extension's `platform_sso_status` value.
    init(extensionValue: String?) {
        switch extensionValue {
        case "platformSSOEnabledNotRegistered": self = .enabledNotRegistered
        case "platformSSOEnabledAndRegistered": self = .enabledAndRegistered
        case "platformSSORegistrationNeedsRepair": self = .registrationNeedsRepair
        default: self = .notEnabled
        }
    }
}

/// How a macOS request may use the broker's XPC service beside Microsoft's Enterprise SSO extension
/// (``MSALTokenParameters/msalXpcMode``). The XPC service is not reached by this library: ``primary`` skips the
/// extension (the library's own flows answer), and the other modes use the extension as ``disabled`` does.
public enum MSALXpcMode: UInt, Sendable {
    /// The extension only. The default.
    case disabled = 0
    /// The XPC service as a companion of the extension: used only behind it.
    case ssoExtCompanion = 1
    /// The XPC service as the extension's backup.
    case ssoExtBackup = 2
    /// The XPC service instead of the extension (development only).
    case primary = 3
}
