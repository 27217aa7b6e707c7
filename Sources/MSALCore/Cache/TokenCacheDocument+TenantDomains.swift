import Foundation

/// The tenant ids of domain-named tenants (`https://login.microsoftonline.com/contoso.onmicrosoft.com`), kept in the
/// cache document beside the tokens filed under them, so that a silent request naming the tenant by its domain finds
/// its cached token with no request at all (the id is otherwise only in the authority's OpenID metadata).
///
/// A top-level section of its own, `"TenantDomains"`: `{"<host[:port]>/<domain>": {"tenant_id": "<id>"}}`. Other
/// MSAL libraries keep sections they do not know (MSAL for Python and .NET write them back); one that drops it only
/// costs the next silent call the metadata request. A value read from the file is used only when it has the shape
/// of a tenant id.
extension TokenCacheDocument {
    static let tenantDomainsSection = "TenantDomains"
    /// At most this many domains are kept (the oldest entries are not tracked: the section is replaced whole).
    static let maximumTenantDomains = 256

    static func tenantDomainKey(_ descriptor: AuthorityDescriptor, host: String) -> String {
        let origin = descriptor.port.map { "\(host.lowercased()):\($0)" } ?? host.lowercased()
        return origin + "/" + descriptor.tenant.lowercased()
    }

    /// The tenant id recorded for the domain `descriptor` names, on its host or one of `hosts` (its cloud's aliases).
    func tenantId(forDomainOf descriptor: AuthorityDescriptor, hosts: [String]) -> String? {
        guard case .object(let entries)? = unknownSections[Self.tenantDomainsSection] else { return nil }
        for host in [descriptor.host] + hosts {
            guard case .object(let fields)? = entries[Self.tenantDomainKey(descriptor, host: host)],
                  let id = fields["tenant_id"]?.stringValue, Self.isTenantId(id) else { continue }
            return id
        }
        return nil
    }

    /// Records that the domain `descriptor` names is the tenant `tenantId`; false when that was already known (or
    /// the id does not have a tenant id's shape).
    func recordTenantDomain(of descriptor: AuthorityDescriptor, tenantId: String) -> Bool {
        guard Self.isTenantId(tenantId) else { return false }
        var entries: [String: JSONValue] = [:]
        if case .object(let existing)? = unknownSections[Self.tenantDomainsSection] { entries = existing }
        let key = Self.tenantDomainKey(descriptor, host: descriptor.host)
        if case .object(let fields)? = entries[key], fields["tenant_id"]?.stringValue == tenantId { return false }
        if entries.count >= Self.maximumTenantDomains { entries = [:] }
        entries[key] = .object(["tenant_id": .string(tenantId)])
        if unknownSections.updateValue(.object(entries), forKey: Self.tenantDomainsSection) == nil {
            sectionOrder.append(.unknown(Self.tenantDomainsSection))
        }
        noteChange()
        return true
    }

    /// A tenant id: a GUID's characters, 1 to 64 of them.
    static func isTenantId(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }
}
