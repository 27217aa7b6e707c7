import Foundation
import MSALSupport

/// Remembers which cached access token answered a silent request, per account object, authority object and
/// scopes, so that repeating the request skips the cache lookup while the cache document is unchanged.
///
/// The memo is only a shortcut into the cache: an entry is used only if the document is the same one (by its serial)
/// with the same change count as when it was recorded, and the token still passes the expiry policy. Keys use object
/// identities; each entry keeps its account, authority and scopes array alive, so an identity is never reused while
/// its entry exists. Entries do not keep documents alive.
///
/// The silent parameters themselves remember the last hit that answered them (``RememberedSilentHit``, cleared by
/// any change to them), so a request made again with the same parameters object touches no memo table at all.
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
        let remembered: RememberedSilentHit

        init(account: MSALAccount, authority: MSALAuthority?, scopes: [String], memo: SilentHitMemo,
             document: TokenCacheDocument, changeCount: Int, entry: AccessTokenEntry, payload: MSALResult.Payload) {
            self.account = account
            self.authority = authority
            self.scopes = scopes
            self.remembered = RememberedSilentHit(payload: payload, memo: memo.serial, document: document.serial,
                                                  changeCount: changeCount, times: CachedTokenTimes(entry))
        }
    }

    /// The identities of a request: its account, its authority and where its scopes array's elements are.
    private struct IdentityKey: Hashable {
        var account: ObjectIdentifier
        var authority: ObjectIdentifier?
        var scopes: UnsafeRawPointer?
    }

    /// Unique in the process, so a remembered hit is never taken for another memo's.
    let serial = ProcessSerial.next()
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

    /// The hit for `probe` when it was read from the document with serial `document` at `changeCount` and its token
    /// is `usable`; nil otherwise.
    func remembered(_ probe: SilentHitProbe, document: UInt64, changeCount: Int,
                    usable: (CachedTokenTimes) -> Bool) -> RememberedSilentHit? {
        lock.lock()
        defer { lock.unlock() }
        guard let hit = find(account: probe.account, authority: probe.authority, scopes: probe.scopes),
              hit.remembered.isCurrent(memo: self, document: document, changeCount: changeCount),
              usable(hit.remembered.times) else { return nil }
        return hit.remembered
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

/// What a remembered cache hit is looked up by: the identities of the request's account and authority, and its
/// scopes.
struct SilentHitProbe {
    let account: ObjectIdentifier
    let authority: ObjectIdentifier?
    let scopes: [String]
}

/// A cache hit as remembered: which memo and document version it was read from, the token's times, and the
/// result's payload. Small and self-contained, so the silent parameters can keep the last one inline.
struct RememberedSilentHit: @unchecked Sendable {
    // (The payload first: the hot path reads it and the serials, which then share a cache line.)
    let payload: MSALResult.Payload
    let memo: UInt64
    let document: UInt64
    let changeCount: Int
    let times: CachedTokenTimes

    /// Whether this hit was recorded by `memo` from the document with serial `document` at `changeCount`.
    @inline(__always)
    func isCurrent(memo: SilentHitMemo, document: UInt64, changeCount: Int) -> Bool {
        self.memo == memo.serial && self.document == document && self.changeCount == changeCount
    }
}

/// Numbers unique in the process (never reused, unlike object addresses), for telling objects apart by value.
enum ProcessSerial {
    private static let last = LockedBox<UInt64>(0)

    static func next() -> UInt64 { last.withLock { $0 &+= 1; return $0 } }
}
