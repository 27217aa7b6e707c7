import Foundation

/// A directory tenant.
public struct EmulatedTenant: Codable, Sendable, Equatable {
    /// The kind of tenant.
    public enum Kind: String, Codable, Sendable {
        /// A work or school (Entra ID) tenant.
        case organization
        /// The personal Microsoft account tenant (reached through `consumers`).
        case consumers
        /// An Azure AD B2C tenant with user-flow policies.
        case b2c
        /// A Microsoft Entra External ID tenant (customers): the one kind that serves native authentication.
        case external
    }
    /// Tenant GUID.
    public var id: String
    /// Verified domain names, for example `contoso.onmicrosoft.com`.
    public var domains: [String]
    /// Display name.
    public var displayName: String
    /// Kind of tenant.
    public var kind: Kind
    /// B2C user-flow policies (only for ``Kind/b2c``), e.g. `B2C_1_signupsignin`.
    public var policies: [B2CPolicy]
    /// A Conditional Access policy on every user sign-in to this tenant: only tokens obtained through the identity
    /// broker (bound to the device) pass it; browser, paste-back, device-code and password sign-ins, and refresh
    /// tokens they got, are refused with Entra's error. Nil (the default): no such policy.
    public var conditionalAccess: EmulatedConditionalAccess?

    /// Creates a tenant.
    public init(id: String, domains: [String], displayName: String, kind: Kind = .organization, policies: [B2CPolicy] = [],
                conditionalAccess: EmulatedConditionalAccess? = nil) {
        self.id = id
        self.domains = domains
        self.displayName = displayName
        self.kind = kind
        self.policies = policies
        self.conditionalAccess = conditionalAccess
    }
}

/// An Azure AD B2C user flow.
public struct B2CPolicy: Codable, Sendable, Equatable {
    /// What the user flow does.
    public enum Kind: String, Codable, Sendable {
        /// Sign-up or sign-in.
        case signUpOrSignIn
        /// Profile editing.
        case profileEdit
        /// Password reset.
        case passwordReset
    }
    /// Policy name, e.g. `B2C_1_signupsignin`.
    public var name: String
    /// What it does.
    public var kind: Kind
    /// Creates a policy.
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// A user account.
public struct EmulatedUser: Codable, Sendable, Equatable {
    /// Sign-in name (UPN or email).
    public var username: String
    /// Password.
    public var password: String
    /// Object id (GUID) in the home tenant.
    public var objectId: String
    /// GUID of the home tenant.
    public var homeTenantId: String
    /// GUIDs of tenants where the user is a guest.
    public var guestOf: [String]
    /// Display name.
    public var displayName: String
    /// Given name.
    public var givenName: String?
    /// Surname.
    public var surname: String?
    /// Mail address (defaults to the username).
    public var mail: String?
    /// Job title.
    public var jobTitle: String?

    /// Creates a user.
    public init(
        username: String, password: String, objectId: String, homeTenantId: String, guestOf: [String] = [],
        displayName: String, givenName: String? = nil, surname: String? = nil, mail: String? = nil, jobTitle: String? = nil
    ) {
        self.username = username
        self.password = password
        self.objectId = objectId
        self.homeTenantId = homeTenantId
        self.guestOf = guestOf
        self.displayName = displayName
        self.givenName = givenName
        self.surname = surname
        self.mail = mail
        self.jobTitle = jobTitle
    }
}
