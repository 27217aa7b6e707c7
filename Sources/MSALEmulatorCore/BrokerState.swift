import MSALSupport
import Foundation

/// What the emulated identity broker keeps: this device's id, and the accounts signed in on it (most recent first)
/// with when each signed in.
struct BrokerState: Sendable {
    /// The device id brokered tokens are bound to (`deviceid`).
    var deviceId = UUID().uuidString.lowercased()
    var accounts: [(userId: String, signedInAt: Date)] = []
    /// Interactive calls in progress, by correlation id, for `cancelInteractiveFlow`.
    var cancelled: Set<String> = []
    /// The application tokens the emulated Authenticator gave, by client id.
    var applicationTokens: [String: String] = [:]
    /// Whether the emulated device is in shared device mode (the SSO extension's `device_mode`).
    var sharedDevice = false
    /// The administrator's preferred sign-in method on the device (`preferred_auth_config`), and the Mac's Platform
    /// SSO status (`platform_sso_status`, nil: not reported).
    var preferredAuthConfig = "preferredAuthNotConfigured"
    var platformSSOStatus: String?
    /// The device's registration (workplace join): its tenant, the user who registered it, its key.
    var registration: DeviceRegistrationRecord?
    /// Nonces given by `srv_challenge`, until when each may be used.
    var serverNonces: [String: Date] = [:]
    /// The broker's proof-of-possession key, once made, and the tokens bound to it by client and account.
    var popKey: BrokerPoPKey?
    var popTokens: [String: BrokerPoPToken] = [:]

    func signedIn(_ userId: String) -> Date? {
        accounts.first { $0.userId == userId }?.signedInAt
    }

    mutating func signIn(_ userId: String, at date: Date) {
        accounts.removeAll { $0.userId == userId }
        accounts.insert((userId, date), at: 0)
    }
}

/// Who approves an interactive sign-in through the emulated broker: given the prompt, the user name to sign in, or
/// nil when the user cancels.
public typealias EmulatedBrokerApprover = @Sendable (EmulatedBrokerPrompt) async -> String?

/// An interactive sign-in the emulated broker asks to be approved.
public struct EmulatedBrokerPrompt: Sendable {
    /// The application's display name and client id.
    public var application: String
    public var clientId: String
    /// The scopes it asks for.
    public var scopes: [String]
    /// The user the application named (`username` or the account), if any.
    public var loginHint: String?
    /// The emulator's auto-approve user, if configured.
    public var autoApproveUsername: String?
}

/// A broker error as Microsoft's broker writes it (`status` in msalruntime's internal numbering).
struct BrokerFailure: Error, Sendable {
    var status: Int
    var errorCode: Int
    var context: String
    var subStatus = 0

    static let interactionRequired = 2, apiContractViolation = 6, userCanceled = 7, incorrectConfiguration = 9
    static let authorityUntrusted = 11, accountNotFound = 19

    func json(tag: Int = 0x1E2A_7B00) -> [String: Any] {
        ["context": context, "tag": tag, "errorCode": errorCode, "status": status, "subStatus": subStatus,
         "diagnostics": [String: String]()]
    }

    /// An identity-platform error as the broker passes it on: the user must act for the ones that need interaction.
    init(_ error: EntraError) {
        let interactive = ["invalid_grant", "interaction_required", "consent_required", "login_required"].contains(error.error)
        self.init(status: interactive ? Self.interactionRequired : 0, errorCode: error.code,
                  context: "\(error.codeText): \(error.message)")
    }

    init(status: Int, errorCode: Int, context: String, subStatus: Int = 0) {
        self.status = status
        self.errorCode = errorCode
        self.context = context
        self.subStatus = subStatus
    }
}
