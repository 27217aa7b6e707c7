import Foundation

/// A set of OAuth scopes compared without regard to case, keeping each scope's original spelling.
///
/// The lowercased forms are computed once, when the set is made, so that comparisons during a cache
/// lookup only hash and compare strings.
struct ScopeSet: Sendable, Hashable, CustomStringConvertible {
    /// The scopes in their original case and order, without duplicates (first spelling wins).
    let scopes: [String]
    /// The lowercased scopes.
    let lowercased: Set<String>
    /// One bit per lowercased scope (from its hash): a subset's mask is a subset of the superset's mask,
    /// so most non-matching sets are rejected without hashing a string.
    let mask: UInt64

    /// A set of the given scopes; empty strings are ignored.
    init(_ scopes: some Sequence<String>) {
        var original: [String] = []
        var lowered = Set<String>()
        for scope in scopes where !scope.isEmpty {
            if lowered.insert(CacheStrings.lower(scope)).inserted { original.append(scope) }
        }
        self.scopes = original
        self.lowercased = lowered
        var mask: UInt64 = 0
        for scope in lowered { mask |= 1 << UInt64(UInt(bitPattern: scope.hashValue) & 63) }
        self.mask = mask
    }

    /// The scopes of a space-separated `target` string, as the cache stores them.
    init(target: String) {
        if !target.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }) {
            self.init(CollectionOfOne(target))
            return
        }
        self.init(target.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).lazy.map(String.init))
    }

    var count: Int { lowercased.count }
    var isEmpty: Bool { lowercased.isEmpty }

    /// Whether `scope` is in the set, ignoring case.
    func contains(_ scope: String) -> Bool { lowercased.contains(CacheStrings.lower(scope)) }

    /// Whether every scope of this set is in `other`, ignoring case.
    @inline(__always)
    func isSubset(of other: ScopeSet) -> Bool {
        if mask & ~other.mask != 0 || lowercased.count > other.lowercased.count { return false }
        for scope in lowercased where !other.lowercased.contains(scope) { return false }
        return true
    }

    /// The OpenID Connect scopes every sign-in asks for (`openid`, `profile`, `offline_access`, `email`).
    static let oidcScopes: Set<String> = ["openid", "profile", "offline_access", "email"]

    /// Whether this set and `other` share a resource scope, ignoring case and the OpenID Connect scopes
    /// (which tokens for different resources may both carry); when either set has only OpenID Connect
    /// scopes, whether they share any scope.
    func overlapsForReplacement(_ other: ScopeSet) -> Bool {
        let (small, large) = count <= other.count ? (self, other) : (other, self)
        let smallIsOIDCOnly = small.lowercased.isSubset(of: Self.oidcScopes)
        let largeIsOIDCOnly = large.lowercased.isSubset(of: Self.oidcScopes)
        if smallIsOIDCOnly || largeIsOIDCOnly { return small.intersects(large) }
        for scope in small.lowercased where !Self.oidcScopes.contains(scope) && large.lowercased.contains(scope) {
            return true
        }
        return false
    }

    /// Whether this set and `other` share a scope, ignoring case.
    func intersects(_ other: ScopeSet) -> Bool {
        let (small, large) = count <= other.count ? (self, other) : (other, self)
        for scope in small.lowercased where large.lowercased.contains(scope) { return true }
        return false
    }

    var description: String { scopes.joined(separator: " ") }

    static func == (lhs: ScopeSet, rhs: ScopeSet) -> Bool { lhs.lowercased == rhs.lowercased }
    func hash(into hasher: inout Hasher) { hasher.combine(lowercased) }
}
