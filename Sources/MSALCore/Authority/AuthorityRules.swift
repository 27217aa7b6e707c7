import Foundation

/// The rules that differ between kinds of authority (Microsoft Entra ID, Azure AD B2C, Microsoft Entra External
/// ID), answered in one place: the engine asks these instead of branching on the kind. A new kind of authority (a
/// generic OpenID Connect provider) is a new set of answers here.
struct AuthorityRules: Sendable {
    let descriptor: AuthorityDescriptor

    /// The kind's name in telemetry.
    var telemetryName: String {
        switch descriptor.kind {
        case .aad: return "AAD"
        case .b2c: return "B2C"
        case .ciam: return "CIAM"
        }
    }

    /// Whether the tenant segment is a placeholder (`common`, `organizations`, `consumers` of Entra ID): tokens
    /// come from a tenant the answer names.
    var isTenantless: Bool { descriptor.kind == .aad && descriptor.tenantKind != .specific }

    /// Whether the authority must be listed in the application's known authorities (it cannot be validated by
    /// instance discovery).
    var mustBeKnown: Bool { descriptor.kind == .b2c }

    /// Whether the token endpoint accepts client assertions signed with RSA-PSS.
    var supportsPSS: Bool { descriptor.kind == .aad || descriptor.kind == .ciam }

    /// Whether app tokens can be requested: the authority names one tenant.
    var namesTenantForAppTokens: Bool { !isTenantless }

    /// Whether the cache realm of app tokens is the tenant segment as given, with no resolution: a tenant named by
    /// its id (a domain-named tenant is stored under its id, which only resolution tells; B2C stores under the
    /// policy's tenant id).
    var appTokenRealmIsTenant: Bool { descriptor.kind != .b2c && descriptor.tenantKind == .specific }

    /// The authority a result names: a tenantless authority names the tenant that answered (`realm`).
    func resultAuthority(_ requested: MSALAuthority, realm: String) -> MSALAuthority {
        isTenantless ? MSALAuthority.make(descriptor.withTenant(realm)) : requested
    }

    /// Where a silent request for `account` goes: a tenantless authority sends it to the account's home tenant.
    func silentDescriptor(for account: MSALAccount) -> AuthorityDescriptor {
        guard isTenantless, let tenant = account.homeAccountId?.tenantId, !tenant.isEmpty else { return descriptor }
        return descriptor.withTenant(tenant)
    }

    /// The realms a silent request looks its cached token up in, in order. Tokens are stored under the tenant id
    /// of the response: B2C's under the account's tenant; an Entra tenant named by a domain under the id its metadata
    /// gives (`resolvedTenantId`). Tokens of SDKs that store the tenant segment as requested (MSAL for Python with
    /// `/common`) are found under `requested`'s segment too.
    func silentRealms(for account: MSALAccount, requested: AuthorityDescriptor, resolvedTenantId: String?) -> [String] {
        if descriptor.kind == .b2c { return [account.homeAccountId?.tenantId ?? descriptor.tenant] }
        var realms = [descriptor.tenant]
        if let resolvedTenantId { realms.insert(resolvedTenantId, at: 0) }
        if requested.tenant != descriptor.tenant { realms.append(requested.tenant) }
        return realms
    }

    /// Whether the tenant is named by a domain, whose id (the cache realm) only the authority's metadata tells: an
    /// AAD tenant, or a CIAM one (`https://contoso.ciamlogin.com/contoso.onmicrosoft.com`, whose tokens are stored
    /// under the tenant id).
    var tenantNeedsResolutionForRealm: Bool {
        (descriptor.kind == .aad || descriptor.kind == .ciam) && descriptor.tenantKind == .specific && descriptor.tenant.utf8.contains(UInt8(ascii: "."))
    }

    /// Whether a request's own authority may be used with an application of `application`'s authority (the same
    /// kind).
    func accepts(requested: AuthorityDescriptor) -> Bool { requested.kind == descriptor.kind }
}

extension AuthorityDescriptor {
    /// The rules of this authority's kind.
    var rules: AuthorityRules { AuthorityRules(descriptor: self) }

    /// See ``AuthorityRules/resultAuthority(_:realm:)``.
    func resultAuthority(_ requested: MSALAuthority, realm: String) -> MSALAuthority {
        rules.resultAuthority(requested, realm: realm)
    }
}
