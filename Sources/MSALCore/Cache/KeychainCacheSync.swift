package import Foundation

/// The primary key of a generic-password keychain item within its access group: `account` and `service`.
package struct KeychainItemKey: Hashable, Sendable {
    package var account: String
    package var service: String

    package init(_ item: KeychainCacheItem) {
        account = item.account
        service = item.service
    }
}

/// What storing a document changes in the keychain: items to add, items to update in place, items to delete.
package struct KeychainCacheChanges: Sendable, Equatable {
    package var add: [KeychainCacheItem] = []
    package var update: [KeychainCacheItem] = []
    package var delete: [KeychainItemKey] = []

    package var isEmpty: Bool { add.isEmpty && update.isEmpty && delete.isEmpty }
}

/// How a unified cache document is stored as keychain items (one per entry, MSAL for iOS/macOS's layout) without
/// losing what others wrote: the keychain is shared by every app of the group, and has no lock across them. Pure.
package enum KeychainCacheSync {
    /// The changes that make the keychain hold `desired` (the items of the document being written), given the entry
    /// items `stored` in it now and the keys of the items of the document the new one was made from (`base`, what
    /// this writer last read):
    /// - an item not stored is added; a stored item that differs is updated; an equal one is left alone;
    /// - a stored item absent from `desired` is deleted only if it was in `base` (this writer removed it); one that
    ///   appeared since the read (another app signed a user in meanwhile) is kept.
    /// Items that are not cache entries (other apps' secrets, MSAL for iOS/macOS's account metadata, the wipe
    /// marker) are never in `stored`, so never touched.
    package static func changes(stored: [KeychainCacheItem], base: Set<KeychainItemKey>,
                                desired: [KeychainCacheItem]) -> KeychainCacheChanges {
        var current: [KeychainItemKey: KeychainCacheItem] = [:]
        for item in stored { current[KeychainItemKey(item)] = item }
        var wanted: [KeychainItemKey: KeychainCacheItem] = [:]
        var order: [KeychainItemKey] = []
        for item in desired {
            let key = KeychainItemKey(item)
            if wanted.updateValue(item, forKey: key) == nil { order.append(key) }
        }
        var changes = KeychainCacheChanges()
        for key in order {
            guard let item = wanted[key] else { continue }
            switch current[key] {
            case nil: changes.add.append(item)
            case let existing? where existing != item: changes.update.append(item)
            default: break
            }
        }
        for item in stored {
            let key = KeychainItemKey(item)
            if wanted[key] == nil, base.contains(key) { changes.delete.append(key) }
        }
        return changes
    }

    /// A version of a set of items that does not depend on the order the keychain returns them in (a sum of the
    /// items' hashes, so equal multisets of items have equal versions).
    package static func digest(_ items: [KeychainCacheItem]) -> Int {
        var total: UInt64 = UInt64(items.count)
        for item in items { total &+= UInt64(bitPattern: Int64(item.hashValue)) &* 0x9E37_79B9_7F4A_7C15 }
        return Int(bitPattern: UInt(total))
    }

    /// `items` with one item per keychain key (the last one of a key wins, as the keychain keeps the last write),
    /// in the order the keys first appear.
    package static func deduplicated(_ items: [KeychainCacheItem]) -> [KeychainCacheItem] {
        var latest: [KeychainItemKey: KeychainCacheItem] = [:]
        var order: [KeychainItemKey] = []
        for item in items {
            let key = KeychainItemKey(item)
            if latest.updateValue(item, forKey: key) == nil { order.append(key) }
        }
        return order.compactMap { latest[$0] }
    }
}

extension KeychainItemLayout {
    /// The item the keychain returned, from its attributes and data; nil when its data is not a JSON object or it
    /// is not a cache entry MSAL reads (another app's secret, account metadata, the wipe marker).
    package static func storedEntry(account: String, service: String, generic: String?, type: Int,
                                    data: Data) -> KeychainCacheItem? {
        guard let value = JSONValue.parseObject(data) else { return nil }
        let item = KeychainCacheItem(account: account, service: service, generic: generic, type: type, value: value)
        return entry(of: item) == nil ? nil : item
    }

    /// The data an item stores (`kSecValueData`): its entry as UTF-8 JSON.
    package static func valueData(_ item: KeychainCacheItem) -> Data {
        Data((JSONText.serialize(.object(item.value)) ?? "{}").utf8)
    }
}
