import Foundation
@testable import MSALCore

/// Files and output of other programs that the library reads: the Azure CLI's profile and `get-access-token`
/// output, and keychain items other apps (MSAL for iOS/macOS among them) wrote into a shared keychain group.
enum OutsideFilesFuzzing {
    /// The input as az's `azureProfile.json` and as its `get-access-token` output: no trap; a byte order mark does
    /// not change the profile; a default account has a non-empty name and tenant; a token is non-empty and its expiry
    /// a finite time.
    static func azureCLI(_ data: Data) throws {
        let profile = AzureCLIProfile.parse(data)
        try fuzzCheck(AzureCLIProfile.parse(Data([0xEF, 0xBB, 0xBF]) + data) == profile || data.starts(with: [0xEF, 0xBB, 0xBF]),
                      "a byte order mark changed the profile")
        if let account = profile?.defaultAccount {
            try fuzzCheck(!account.name.isEmpty && !account.tenantId.isEmpty, "a default account without name or tenant")
        }
        if let printed = AzureCLIAccessToken.parse(data) {
            try fuzzCheck(!printed.accessToken.isEmpty, "an empty access token")
            if let expiresOn = printed.expiresOn {
                try fuzzCheck(expiresOn.timeIntervalSince1970.isFinite, "an expiry that is not a finite time")
            }
        }
    }

    /// The input as one keychain item (its first byte the type's offset, then `account`, `service`, `generic` and
    /// the data, separated by NUL) and as a cache document stored as items: no trap; an item read as an entry maps
    /// back to a cache section; a document's items, written back as a document and read again, give the same
    /// document (the mapping is stable after one pass).
    static func keychainItem(_ data: Data) throws {
        // ADAL's legacy items are archived as binary property lists: any input is a value or a typed failure.
        if let value = try? BinaryPropertyList.parse(data) {
            // Compared as written (a NaN is not equal to itself).
            let written = BinaryPropertyList.serialize(value)
            try fuzzCheck(BinaryPropertyList.serialize(try BinaryPropertyList.parse(written)) == written,
                          "a property list written back reads differently")
        }
        try legacyArchive(data)
        let bytes = [UInt8](data)
        if let first = bytes.first {
            let parts = bytes.dropFirst().split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            if parts.count == 4 {
                let types = [2001, 2002, 2003, 2006, 2007, 2008, 1001, 1003, 3001, 5001, 0]
                let type = types[Int(first) % types.count]
                if let item = KeychainItemLayout.storedEntry(account: parts[0], service: parts[1], generic: parts[2],
                                                             type: type, data: Data(parts[3].utf8)) {
                    try fuzzCheck(KeychainItemLayout.entry(of: item) != nil, "a stored entry that maps to no section")
                    _ = KeychainItemLayout.valueData(item)
                }
            }
        }
        let items = KeychainItemLayout.items(fromDocument: data)
        let once = KeychainItemLayout.document(from: items)
        let twice = KeychainItemLayout.document(from: KeychainItemLayout.items(fromDocument: once))
        try fuzzCheck(JSONValue.parseObject(once) != nil, "a document written from items that is not a JSON object")
        try fuzzCheck(JSONValue.parseObject(once) == JSONValue.parseObject(twice), "the item mapping is not stable")
        let digest = KeychainCacheSync.digest(items)
        try fuzzCheck(digest == KeychainCacheSync.digest(items.reversed()), "the items' digest depends on their order")
    }

    /// The input as ADAL's archived item, as macOS' serialized ADAL cache, as a version of the shared-accounts list and
    /// as a legacy item's service attribute: a value or a typed failure; an item, a cache or a list read, written
    /// back and read again is the same; a service read names the same service again.
    static func legacyArchive(_ data: Data) throws {
        if let item = try? LegacyTokenCacheItem.decode(data) {
            for forIOS in [false, true] {
                let written = item.encode(forIOS: forIOS)
                try fuzzCheck(try LegacyTokenCacheItem.decode(written).encode(forIOS: forIOS) == written,
                              "an item written back reads differently")
            }
            _ = (item.environment, item.realm, item.claims)
        }
        if let cache = try? SerializedADALCache(data: data) {
            let written = cache.serialized()
            try fuzzCheck(try SerializedADALCache(data: written).serialized() == written,
                          "a serialized cache written back reads differently")
            var copy = cache
            for stored in cache.storedItems { try copy.save(stored) }
            try fuzzCheck(copy.serialized() == written, "saving a cache's own items changed it")
        }
        // A version of the shared-accounts list other apps write: read, filtered, changed and written back.
        if let list = LegacySharedAccounts.List(data) {
            let every = MSALAccountEnumerationParameters(identifier: nil)
            every.returnOnlySignedInAccounts = false
            for account in LegacySharedAccounts.accounts([3: list], parameters: every, bundleId: "b") {
                try fuzzCheck(account.identifier?.isEmpty != true, "a shared account with an empty identifier")
            }
            let again = LegacySharedAccounts.List(list.data(timestamp: 1))
            try fuzzCheck(again?.entries == list.entries, "a shared-accounts list written back reads differently")
            let removed = LegacySharedAccounts.removed(list, version: 3, objectIds: ["oid"], wipe: false, bundleId: "b",
                                                       appName: "a", now: Date(timeIntervalSince1970: 0))
            try fuzzCheck(removed.entries.count == list.entries.count, "signing out changed the number of entries")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let parts = LegacyTokenCacheKey.components(ofService: text) {
            let key = LegacyTokenCacheKey(authority: parts.authority, resource: parts.resource, clientId: parts.clientId, userId: "")
            try fuzzCheck(LegacyTokenCacheKey.components(ofService: key.service) != nil, "a service written back is not read")
        }
    }
}
