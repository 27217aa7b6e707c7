import Foundation

/// Remembers which cached access token answered a silent request, per account object, authority object and
/// scopes, so that repeating the request skips the cache lookup while the cache document is unchanged.
///
/// The memo is only a shortcut into the cache: an entry is used only if the document is the same object with the
/// same change count as when it was recorded, and the token still passes the expiry policy. Keys use object
/// identities; each entry keeps its account, authority, scopes array and document alive, so an identity is never
/// reused while its entry exists.
///
/// A request made again with the same parameters (the same scopes array) is found by identities alone: one hash of
/// three words, no scope string read. Other requests for the same scopes are found among the account's entries by
/// comparing scopes. The hot path (``payload(account:authority:scopes:document:changeCount:usable:)``) takes one
/// reference, the result's payload: a hit touches few cache lines however large the cache.
final class SilentHitMemo: @unchecked Sendable {
    struct Key: Hashable {
        var account: ObjectIdentifier
        var authority: ObjectIdentifier?
        var scopes: [String]
    }

    /// One remembered hit. A class, so that both indexes share it and a lookup copies one reference.
    final class Hit: @unchecked Sendable {
        let account: MSALAccount
        let authority: MSALAuthority?
        let scopes: [String]
        let document: TokenCacheDocument
        let changeCount: Int
        let times: CachedTokenTimes
        let payload: MSALResult.Payload

        init(account: MSALAccount, authority: MSALAuthority?, scopes: [String], document: TokenCacheDocument,
             changeCount: Int, entry: AccessTokenEntry, payload: MSALResult.Payload) {
            self.account = account
            self.authority = authority
            self.scopes = scopes
            self.document = document
            self.changeCount = changeCount
            self.times = CachedTokenTimes(entry)
            self.payload = payload
        }
    }

    /// The identities of a request: its account, its authority and where its scopes array's elements are.
    private struct IdentityKey: Hashable {
        var account: ObjectIdentifier
        var authority: ObjectIdentifier?
        var scopes: UnsafeRawPointer?
    }

    private let lock = NSLock()
    private var byIdentity: [IdentityKey: Hit] = [:]
    private var byAccount: [ObjectIdentifier: [Hit]] = [:]
    private let capacity: Int

    init(capacity: Int = 65_536) {
        self.capacity = capacity
    }

    /// The address of an array's elements (nil for an empty array); the array stays alive in its hit.
    private static func address(of scopes: [String]) -> UnsafeRawPointer? {
        scopes.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
    }

    /// The payload of the hit for these keys when it was read from `document` at `changeCount` and its token is
    /// `usable`; nil otherwise.
    func payload(account: ObjectIdentifier, authority: ObjectIdentifier?, scopes: [String], document: TokenCacheDocument,
                 changeCount: Int, usable: (CachedTokenTimes) -> Bool) -> MSALResult.Payload? {
        lock.lock()
        defer { lock.unlock() }
        guard let hit = find(account: account, authority: authority, scopes: scopes),
              hit.document === document, hit.changeCount == changeCount, usable(hit.times) else { return nil }
        return hit.payload
    }

    /// The hit for these keys (under the lock).
    private func find(account: ObjectIdentifier, authority: ObjectIdentifier?, scopes: [String]) -> Hit? {
        if let address = Self.address(of: scopes),
           let hit = byIdentity[IdentityKey(account: account, authority: authority, scopes: address)] {
            return hit
        }
        guard let hits = byAccount[account] else { return nil }
        for hit in hits where hit.authority.map(ObjectIdentifier.init) == authority && hit.scopes == scopes { return hit }
        return nil
    }

    func record(_ key: Key, _ hit: Hit) {
        lock.lock()
        defer { lock.unlock() }
        if byIdentity.count >= capacity {
            byIdentity.removeAll(keepingCapacity: true)
            byAccount.removeAll(keepingCapacity: true)
        }
        var hits = byAccount[key.account] ?? []
        if let index = hits.firstIndex(where: {
            $0.authority.map(ObjectIdentifier.init) == key.authority && $0.scopes == key.scopes
        }) {
            let replaced = hits[index]
            byIdentity[IdentityKey(account: key.account, authority: key.authority, scopes: Self.address(of: replaced.scopes))] = nil
            hits[index] = hit
        } else {
            hits.append(hit)
        }
        byIdentity[IdentityKey(account: key.account, authority: key.authority, scopes: Self.address(of: hit.scopes))] = hit
        byAccount[key.account] = hits
    }

    func removeAll() {
        lock.lock()
        byIdentity.removeAll()
        byAccount.removeAll()
        lock.unlock()
    }
}
