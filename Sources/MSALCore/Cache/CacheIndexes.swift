import Foundation

/// An entry key with its hash computed once: growing the table rehashes an integer instead of a long
/// key, and a probe that meets another key is usually rejected by comparing hashes.
struct HashedKey: Hashable {
    let string: String
    let hash: Int

    @inline(__always)
    init(_ string: String) {
        self.string = string
        hash = string.hashValue
    }

    @inline(__always)
    static func == (lhs: HashedKey, rhs: HashedKey) -> Bool { lhs.hash == rhs.hash && lhs.string == rhs.string }

    @inline(__always)
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}

/// Entries of one section by key, plus an index by lowercased `home_account_id`.
struct HomeIndexedEntries<Entry: CacheEntry> {
    private(set) var byKey: [HashedKey: Entry] = [:]
    /// The entries of each account, so a per-account lookup hashes the account id once, not every entry key.
    private var entriesByHome: [String: [Entry]] = [:]

    var count: Int { byKey.count }

    subscript(key: String) -> Entry? { byKey[HashedKey(key)] }

    /// Inserts `entry`, replacing any entry with the same key.
    mutating func insert(_ entry: Entry) {
        if let old = byKey.updateValue(entry, forKey: HashedKey(entry.key)) {
            if old.homeKey == entry.homeKey {
                let key = entry.key
                if let index = entriesByHome[entry.homeKey]?.firstIndex(where: { $0.key == key }) {
                    entriesByHome[entry.homeKey]![index] = entry
                    return
                }
            } else {
                removeFromHomeIndex(key: old.key, home: old.homeKey)
            }
        }
        entriesByHome[entry.homeKey, default: []].append(entry)
    }

    @discardableResult
    mutating func remove(key: String) -> Entry? {
        guard let old = byKey.removeValue(forKey: HashedKey(key)) else { return nil }
        removeFromHomeIndex(key: key, home: old.homeKey)
        return old
    }

    /// The entries of one account; `homeKey` must be lowercased.
    func entries(homeKey: String) -> [Entry] {
        entriesByHome[homeKey] ?? []
    }

    var all: Dictionary<HashedKey, Entry>.Values { byKey.values }

    private mutating func removeFromHomeIndex(key: String, home: String) {
        guard var entries = entriesByHome[home] else { return }
        entries.removeAll { $0.key == key }
        entriesByHome[home] = entries.isEmpty ? nil : entries
    }
}

/// Access tokens in small buckets per (home account, client, realm), all lowercased, so a lookup only
/// looks at one account's tokens for one app and tenant.
struct AccessTokenIndex {
    struct Bucket: Hashable {
        let home: String
        let client: String
        let realm: String

        /// Hashes the home account id, and for app tokens (no home account, one bucket per client and tenant) the
        /// client and realm too; equality compares all three.
        func hash(into hasher: inout Hasher) {
            hasher.combine(home)
            if home.isEmpty {
                hasher.combine(client)
                hasher.combine(realm)
            }
        }
    }

    private var buckets: [Bucket: [AccessTokenEntry]] = [:]
    private var bucketsByHome: [String: [Bucket]] = [:]
    /// Key → bucket, built on first use (only removal by key and replacement need it).
    private var bucketOfKey: [String: Bucket]?

    private(set) var count = 0

    func bucket(home: String, client: String, realm: String) -> [AccessTokenEntry] {
        buckets[Bucket(home: home, client: client, realm: realm)] ?? []
    }

    subscript(key: String) -> AccessTokenEntry? {
        mutating get {
            guard let bucket = keyIndex()[key] else { return nil }
            return buckets[bucket]?.first { $0.key == key }
        }
    }

    private mutating func keyIndex() -> [String: Bucket] {
        if let built = bucketOfKey { return built }
        var built: [String: Bucket] = [:]
        built.reserveCapacity(count)
        for (bucket, entries) in buckets { for entry in entries { built[entry.key] = bucket } }
        bucketOfKey = built
        return built
    }

    /// Replaces the entry with `entry`'s key (returning true) or appends `entry` (returning false).
    @inline(__always)
    private static func upsert(_ entry: AccessTokenEntry, into entries: inout [AccessTokenEntry]) -> Bool {
        if let index = entries.firstIndex(where: { $0.key == entry.key }) {
            entries[index] = entry
            return true
        }
        entries.append(entry)
        return false
    }

    private static func newBucket() -> [AccessTokenEntry] {
        var entries: [AccessTokenEntry] = []
        entries.reserveCapacity(8)
        return entries
    }

    /// Every access token of one account (any client or realm); `home` lowercased.
    func entries(home: String) -> [AccessTokenEntry] {
        (bucketsByHome[home] ?? []).flatMap { buckets[$0] ?? [] }
    }

    var all: [AccessTokenEntry] {
        var result: [AccessTokenEntry] = []
        result.reserveCapacity(count)
        for bucket in buckets.values { result.append(contentsOf: bucket) }
        return result
    }

    /// Inserts `entry`, replacing an entry with the same key. Until the key index exists (it is built by
    /// the first removal by key), only the entry's own bucket is searched for the same key: equal keys
    /// come from equal lowercased account, client and realm, so they share a bucket.
    mutating func insert(_ entry: AccessTokenEntry) {
        if bucketOfKey != nil { remove(key: entry.key) }
        let bucket = Bucket(home: entry.homeKey, client: entry.clientKey, realm: entry.realmKey)
        let bucketCount = buckets.count
        // One hash: insert into the bucket, or replace the entry with the same key there.
        if Self.upsert(entry, into: &buckets[bucket, default: Self.newBucket()]) { return }
        count += 1
        if buckets.count != bucketCount { bucketsByHome[bucket.home, default: []].append(bucket) }
        bucketOfKey?[entry.key] = bucket
    }

    @discardableResult
    mutating func remove(key: String) -> AccessTokenEntry? {
        guard let bucket = keyIndex()[key] else { return nil }
        bucketOfKey![key] = nil
        count -= 1
        return removeFromBucket(bucket, key: key)
    }

    @discardableResult
    private mutating func removeFromBucket(_ bucket: Bucket, key: String) -> AccessTokenEntry? {
        guard var entries = buckets[bucket], let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let removed = entries.remove(at: index)
        if entries.isEmpty {
            buckets[bucket] = nil
            if var list = bucketsByHome[bucket.home] {
                list.removeAll { $0 == bucket }
                bucketsByHome[bucket.home] = list.isEmpty ? nil : list
            }
        } else {
            buckets[bucket] = entries
        }
        return removed
    }
}
