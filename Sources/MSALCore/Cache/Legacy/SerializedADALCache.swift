package import Foundation

/// The serialized ADAL cache of macOS (`MSIDMacTokenCache.m`, `serialize` and `deserialize:`, ADAL for macOS's own
/// `ADTokenCache`): a keyed archive of `{ "version": 1.0, "tokenCache": { "tokens": { <user id>: { <ADTokenCacheKey>:
/// <ADTokenCacheStoreItem> } } } }`, the user id plain (trimmed, lower-cased; empty for ADFS), each key the item's
/// service (`legacyKeyWithoutAccount:`). Read as `validateCache:` checks it: a version above 1.0, a missing or
/// non-mutable token cache, a user id that is not a string or a key or item of another class is refused.
package struct SerializedADALCache: Sendable, Equatable {
    /// The items by user id and service, in the archive's order.
    package private(set) var users: [(userId: String, items: [(service: String, item: ArchivedObject)])] = []

    static let version = 1.0
    static let keyClass = "ADTokenCacheKey"

    package init() {}

    package static func == (lhs: SerializedADALCache, rhs: SerializedADALCache) -> Bool {
        lhs.users.count == rhs.users.count && zip(lhs.users, rhs.users).allSatisfy { left, right in
            left.userId == right.userId && left.items.count == right.items.count
                && zip(left.items, right.items).allSatisfy { $0.service == $1.service && $0.item == $1.item }
        }
    }

    /// The cache archived in `data`.
    package init(data: Data) throws(BinaryPropertyList.Failure) {
        let root = try KeyedArchive.decode(data)
        guard root.entries != nil else { throw BinaryPropertyList.Failure(reason: "the cache's root is not a dictionary") }
        let version: Double
        switch root["version"] {
        case .real(let number)?: version = number
        case .integer(let number)?: version = Double(number)
        default: throw BinaryPropertyList.Failure(reason: "the cache has no version")
        }
        guard version.isFinite, version <= Self.version else { throw BinaryPropertyList.Failure(reason: "the cache is of a later version") }
        guard case .dictionary(let cache, mutable: true)? = root["tokenCache"] else {
            throw BinaryPropertyList.Failure(reason: "the cache has no mutable token cache")
        }
        let tokens = ArchivedValue.dictionary(cache, mutable: true)["tokens"]
        guard let tokens else { return }
        guard case .dictionary(let byUser, mutable: true) = tokens else {
            throw BinaryPropertyList.Failure(reason: "the tokens are not a mutable dictionary")
        }
        for entry in byUser {
            guard case .string(let userId) = entry.key else { throw BinaryPropertyList.Failure(reason: "a user id is not a string") }
            guard case .dictionary(let items, mutable: true) = entry.value else {
                throw BinaryPropertyList.Failure(reason: "a user's tokens are not a mutable dictionary")
            }
            // A user that comes again adds to the earlier one's items; a service that comes again replaces its item.
            var userIndex = users.count
            if let known = users.firstIndex(where: { $0.userId == userId }) {
                userIndex = known
            } else {
                users.append((userId, []))
            }
            for item in items {
                guard case .object(let key) = item.key, key.className == Self.keyClass || key.className == "MSIDLegacyTokenCacheKey",
                      let service = Self.service(of: key) else {
                    throw BinaryPropertyList.Failure(reason: "a token's key is not ADAL's")
                }
                guard case .object(let token) = item.value, (try? LegacyTokenCacheItem(archived: token)) != nil else {
                    throw BinaryPropertyList.Failure(reason: "a token is not ADAL's")
                }
                if let existing = users[userIndex].items.firstIndex(where: { $0.service == service }) {
                    users[userIndex].items[existing].item = token
                } else {
                    users[userIndex].items.append((service, token))
                }
            }
        }
    }

    /// The service a key names: its `service` field, else made of its authority, resource and client id
    /// (`MSIDLegacyTokenCacheKey initWithCoder:`, ADAL's keys).
    static func service(of key: ArchivedObject) -> String? {
        if let service = key.string("service") { return service }
        guard let authority = key.string("authority"), let clientId = key.string("clientId") else { return nil }
        return LegacyTokenCacheKey(authority: authority, resource: key.string("resource"), clientId: clientId, userId: "").service
    }

    /// The cache as MSAL archives it.
    package func serialized() -> Data {
        let byUser = users.map { user in
            ArchivedEntry(.string(user.userId), .dictionary(user.items.map { service, item in
                var fields: [String: ArchivedValue] = ["service": .string(service)]
                if let parts = LegacyTokenCacheKey.components(ofService: service) {
                    fields["authority"] = .string(parts.authority)
                    fields["clientId"] = .string(parts.clientId)
                    if let resource = parts.resource { fields["resource"] = .string(resource) }
                }
                return ArchivedEntry(.object(ArchivedObject(className: Self.keyClass, fields: fields)), .object(item))
            }, mutable: true))
        }
        let cache = ArchivedValue.dictionary([ArchivedEntry(.string("tokens"), .dictionary(byUser, mutable: true))], mutable: true)
        let root = ArchivedValue.dictionary([ArchivedEntry(.string("tokenCache"), cache),
                                             ArchivedEntry(.string("version"), .real(Self.version))], mutable: false)
        return KeyedArchive.encode(root)
    }

    /// Every item as a stored legacy item (account: the user id).
    package var storedItems: [LegacyStoredItem] {
        users.flatMap { user in
            user.items.map { LegacyStoredItem(account: user.userId, service: $0.service, data: KeyedArchive.encode(.object($0.item))) }
        }
    }

    /// Adds or replaces the item of `stored`'s user and service.
    package mutating func save(_ stored: LegacyStoredItem) throws(BinaryPropertyList.Failure) {
        guard let item = try KeyedArchive.decode(stored.data).objectValue else {
            throw BinaryPropertyList.Failure(reason: "the item is not an archived object")
        }
        if let userIndex = users.firstIndex(where: { $0.userId == stored.account }) {
            if let itemIndex = users[userIndex].items.firstIndex(where: { $0.service == stored.service }) {
                users[userIndex].items[itemIndex].item = item
            } else {
                users[userIndex].items.append((stored.service, item))
            }
        } else {
            users.append((stored.account, [(stored.service, item)]))
        }
    }

    /// Removes the item of `account` and `service`; a user left without items goes too.
    package mutating func remove(account: String, service: String) {
        guard let userIndex = users.firstIndex(where: { $0.userId == account }) else { return }
        users[userIndex].items.removeAll { $0.service == service }
        if users[userIndex].items.isEmpty { users.remove(at: userIndex) }
    }
}
