import Foundation

/// A tenant's Conditional Access policy on user sign-ins that only the identity broker passes (a token bound to the
/// device it runs on).
public enum EmulatedConditionalAccess: String, Codable, Sendable, CaseIterable {
    /// "Require device to be marked as compliant": refused with AADSTS53000.
    case compliantDevice
    /// "Require token protection for sign-in sessions": refused with AADSTS530084.
    case tokenProtection
}

extension EmulatorCore {
    /// The grants a user signs in with outside the broker; the on-behalf-of and app grants are not evaluated here.
    static let conditionalAccessGrants: Set<String> = [
        "authorization_code", "refresh_token", deviceCodeGrant, "password", "oob", "mfa_oob", "continuation_token",
    ]

    /// Refuses a user grant of a tenant under ``EmulatedConditionalAccess`` unless its tokens are device-bound (a
    /// refresh token the broker obtained), as Entra refuses it: `invalid_grant` with the policy's AADSTS code.
    func enforceConditionalAccess(_ grant: Grant, grantType: String) throws(EntraError) {
        guard Self.conditionalAccessGrants.contains(grantType), grant.deviceId == nil,
              let policy = grant.tenant.conditionalAccess else { return }
        throw Self.conditionalAccessError(policy)
    }

    static func conditionalAccessError(_ policy: EmulatedConditionalAccess) -> EntraError {
        switch policy {
        case .compliantDevice:
            return EntraError(
                error: "invalid_grant", code: 53000,
                message: "Device is not in required device state: compliant. Conditional Access policy requires a "
                    + "compliant device, and the device is not compliant. The user must enroll their device with an "
                    + "approved MDM provider like Intune.")
        case .tokenProtection:
            return EntraError(
                error: "invalid_grant", code: 530084,
                message: "Access has been blocked by the Conditional Access token protection policy: this sign-in "
                    + "session must be bound to the device, through the device's identity broker.")
        }
    }
}
