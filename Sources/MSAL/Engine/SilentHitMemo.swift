import Foundation

/// Remembers which cached access token answered a silent request, per account object, authority object and
/// scopes, so that repeating the request skips the cache lookup while the cache document is unchanged.
///
/// The memo is only a shortcut into the cache: an entry is used only if the document is the same object with the
/// same change count as when it was recorded, and the token still passes the expiry policy. Keys use object
/// identities; each entry keeps its account and authority alive, so an identity is never reused while its
/// entry exists.
final class SilentHitMemo: @unchecked Sendable {
    struct Key: Hashable {
        var account: ObjectIdentifier
        var authority: ObjectIdentifier?
        var scopes: [String]
    }

    struct Hit {
        var account: MSALAccount
        var authority: MSALAuthority?
        var document: TokenCacheDocument
        var changeCount: Int
        var entry: AccessTokenEntry
        var idToken: String?
        var profile: MSALTenantProfile
        var resultAuthority: MSALAuthority
        var resultScopes: [String]
    }

    private let lock = NSLock()
    private var hits: [Key: Hit] = [:]
    private let capacity: Int

    init(capacity: Int = 65_536) {
        self.capacity = capacity
    }

    func lookup(_ key: Key) -> Hit? {
        lock.lock()
        defer { lock.unlock() }
        return hits[key]
    }

    func record(_ key: Key, _ hit: Hit) {
        lock.lock()
        defer { lock.unlock() }
        if hits.count >= capacity { hits.removeAll(keepingCapacity: true) }
        hits[key] = hit
    }

    func removeAll() {
        lock.lock()
        hits.removeAll()
        lock.unlock()
    }
}
