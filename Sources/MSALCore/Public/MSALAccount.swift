import Foundation

/// The account identifier made of the user's object id and home tenant id: `identifier` = `<objectId>.<tenantId>`.
public final class MSALAccountId: Sendable, Hashable, CustomStringConvertible {
    /// The home account id, `uid.utid`.
    public let identifier: String?
    /// The user's object id in the home tenant (`uid`).
    public let objectId: String?
    /// The home tenant id (`utid`).
    public let tenantId: String?

    init(identifier: String) {
        self.identifier = identifier
        let parts = identifier.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 2 {
            objectId = String(parts[0])
            tenantId = String(parts[1])
        } else {
            objectId = nil
            tenantId = nil
        }
    }

    public static func == (lhs: MSALAccountId, rhs: MSALAccountId) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier ?? "" }
}

/// One tenant an account has signed in to: its home tenant, or a tenant where the user is a guest.
public final class MSALTenantProfile: Sendable, Hashable {
    /// The user's object id (`oid`) in this tenant.
    public let identifier: String?
    /// The host the tenant profile was issued by.
    public let environment: String?
    /// The tenant id.
    public let tenantId: String?
    /// Whether this is the user's home tenant.
    public let isHomeTenantProfile: Bool
    let claimValues: [String: JSONValue]?

    /// The id-token claims issued in this tenant, when known.
    public var claims: [String: Any]? { claimValues?.mapValues(\.foundationValue) }

    init(identifier: String?, environment: String?, tenantId: String?, isHomeTenantProfile: Bool, claims: [String: JSONValue]?) {
        self.identifier = identifier
        self.environment = environment
        self.tenantId = tenantId
        self.isHomeTenantProfile = isHomeTenantProfile
        self.claimValues = claims
    }

    public static func == (lhs: MSALTenantProfile, rhs: MSALTenantProfile) -> Bool {
        lhs.identifier == rhs.identifier && lhs.tenantId == rhs.tenantId && lhs.environment == rhs.environment
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(tenantId)
    }
}

/// What every account MSAL reports offers. (MSAL for iOS/macOS declares this as the Objective-C protocol
/// `MSALAccount`, which Swift sees as `MSALAccountProtocol`.)
public protocol MSALAccountProtocol: Sendable {
    /// The user's sign-in name (`preferred_username`), when known.
    var username: String? { get }
    /// The home account id, `uid.utid`.
    var identifier: String? { get }
    /// The host the account was signed in at, such as `login.microsoftonline.com`.
    var environment: String { get }
    /// The home-tenant id-token claims, when known.
    var accountClaims: [String: Any]? { get }
}

/// A signed-in account. Obtain accounts from ``MSALPublicClientApplication/allAccounts()`` and the other lookups,
/// or from ``MSALResult/account``; there is no public initializer.
public final class MSALAccount: MSALAccountProtocol, Hashable, CustomStringConvertible {
    public let username: String?
    /// The home account id: `uid.utid` with object id and home tenant id.
    public let homeAccountId: MSALAccountId?
    public let environment: String
    /// The tenants this account has signed in to. Filled by the account lookups of ``MSALPublicClientApplication``.
    public let tenantProfiles: [MSALTenantProfile]?
    /// Whether the account came from a device-wide single-sign-on source rather than this app's cache.
    public let isSSOAccount: Bool
    let claimValues: [String: JSONValue]?

    public var identifier: String? { homeAccountId?.identifier }
    public var accountClaims: [String: Any]? { claimValues?.mapValues(\.foundationValue) }

    init(username: String?, homeAccountId: String, environment: String, tenantProfiles: [MSALTenantProfile]?,
         claims: [String: JSONValue]?, isSSOAccount: Bool = false) {
        self.username = username
        self.homeAccountId = MSALAccountId(identifier: homeAccountId)
        self.environment = environment
        self.tenantProfiles = tenantProfiles
        self.claimValues = claims
        self.isSSOAccount = isSSOAccount
    }

    public static func == (lhs: MSALAccount, rhs: MSALAccount) -> Bool {
        lhs.identifier == rhs.identifier && lhs.environment.lowercased() == rhs.environment.lowercased()
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    public var description: String {
        "MSALAccount(username: \(username ?? "nil"), identifier: \(identifier ?? "nil"), environment: \(environment))"
    }
}
