import Foundation

/// The ways a user of a native-authentication app proves who they are, as the app declares them to Microsoft Entra
/// External ID. The service answers `redirect` (a browser sign-in) when the user needs a way the app did not
/// declare; MSAL always declares `redirect` itself.
public struct MSALNativeAuthChallengeTypes: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A one-time passcode sent by email (`oob`).
    public static let OOB = MSALNativeAuthChallengeTypes(rawValue: 1)
    /// A password (`password`).
    public static let password = MSALNativeAuthChallengeTypes(rawValue: 2)

    var core: NativeAuthChallengeTypes {
        var types: NativeAuthChallengeTypes = []
        if contains(.OOB) { types.insert(.oneTimePasscode) }
        if contains(.password) { types.insert(.password) }
        return types
    }
}

/// What else the app can do when the tenant asks for it: a second factor (`mfa_required`) or registering a strong
/// authentication method during sign-in (`registration_required`). Without them the service answers `redirect` for
/// such users.
public struct MSALNativeAuthCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The app can run a second-factor step.
    public static let mfaRequired = MSALNativeAuthCapabilities(rawValue: 1)
    /// The app can register a strong authentication method during sign-in.
    public static let registrationRequired = MSALNativeAuthCapabilities(rawValue: 2)

    /// The `capabilities` form value, nil when empty.
    var parameter: String? {
        var names: [String] = []
        if contains(.mfaRequired) { names.append("mfa_required") }
        if contains(.registrationRequired) { names.append("registration_required") }
        return names.isEmpty ? nil : names.joined(separator: " ")
    }
}

/// Where a one-time passcode was sent: the service's `challenge_channel`.
public final class MSALNativeAuthChannelType: Sendable, CustomStringConvertible {
    /// The channel as the service names it (`email`, `sms`).
    public let value: String

    init(value: String) { self.value = value }

    /// Whether the code went to an email address.
    public var isEmailType: Bool { value.lowercased() == "email" }
    /// Whether the code went to a phone by text message.
    public var isSMSType: Bool { value.lowercased() == "sms" }

    public var description: String { value }
}

/// An attribute the tenant's user flow asks for at sign-up.
public final class MSALNativeAuthRequiredAttribute: Sendable {
    /// The attribute's programmable name (`displayName`, `postalCode`, `extension_<app>_<name>`).
    public let name: String
    /// Its type as the service names it (`string`, `boolean`, …).
    public let type: String
    /// Whether sign-up cannot finish without it.
    public let required: Bool
    /// The regular expression the value must match, if the service gave one.
    public let regex: String?

    init(name: String, type: String, required: Bool, regex: String?) {
        self.name = name
        self.type = type
        self.required = required
        self.regex = regex
    }
}
