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

    /// One remembered hit. A class, so that looking it up costs one reference, not a copy of every field.
    final class Hit: @unchecked Sendable {
        let account: MSALAccount
        let authority: MSALAuthority?
        let document: TokenCacheDocument
        let changeCount: Int
        let times: CachedTokenTimes
        let payload: MSALResult.Payload

        init(account: MSALAccount, authority: MSALAuthority?, document: TokenCacheDocument, changeCount: Int,
             entry: AccessTokenEntry, payload: MSALResult.Payload) {
            self.account = account
            self.authority = authority
            self.document = document
            self.changeCount = changeCount
            self.times = CachedTokenTimes(entry)
            self.payload = payload
        }
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
