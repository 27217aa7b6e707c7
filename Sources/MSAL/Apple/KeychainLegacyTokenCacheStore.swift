#if canImport(Security)
import Foundation
import Security

/// ADAL's items in the keychain sharing group, where ADAL for iOS and MSAL for iOS/macOS keep them
/// (`MSIDKeychainTokenCache.m`): generic passwords of the group whose generic attribute is `MSOpenTech.ADAL.1`, named
/// by their account and service (``LegacyTokenCacheKey``), accessible after the first unlock on this device. Only
/// those items are listed, changed or removed; the unified cache's items and other apps' secrets are never touched.
final class KeychainLegacyTokenCacheStore: LegacyTokenCacheStore, @unchecked Sendable {
    private let keychainSharingGroup: String
    private let usesDataProtectionKeychain: Bool
    /// The unified cache's storage of the same group: its access group (the team id read once) is this one's.
    private let unified: MSALKeychainTokenCacheStorage

    init(keychainSharingGroup: String, usesDataProtectionKeychain: Bool = MSALKeychainTokenCacheStorage.dataProtectionByDefault) {
        self.keychainSharingGroup = keychainSharingGroup
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
        unified = MSALKeychainTokenCacheStorage(keychainSharingGroup: keychainSharingGroup,
                                                usesDataProtectionKeychain: usesDataProtectionKeychain)
    }

    func legacyItems() throws -> [LegacyStoredItem] {
        var query = try baseQuery()
        query[kSecAttrGeneric as String] = LegacyTokenCacheKey.generic
        return try MSALKeychainTokenCacheStorage.allItems(matching: query, group: keychainSharingGroup).compactMap { attributes in
            guard let account = attributes[kSecAttrAccount as String] as? String,
                  let service = attributes[kSecAttrService as String] as? String,
                  let data = attributes[kSecValueData as String] as? Data else { return nil }
            return LegacyStoredItem(account: account, service: service, data: data)
        }
    }

    func saveLegacyItem(_ item: LegacyStoredItem) throws {
        let query = try itemQuery(account: item.account, service: item.service)
        let changed: [String: Any] = [kSecValueData as String: item.data, kSecAttrGeneric as String: LegacyTokenCacheKey.generic]
        var status = SecItemUpdate(query as CFDictionary, changed as CFDictionary)
        if status == errSecItemNotFound {
            var attributes = query
            attributes.merge(changed) { $1 }
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(attributes as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw MSALKeychainTokenCacheStorage.error(status, "write", group: keychainSharingGroup) }
    }

    func removeLegacyItem(account: String, service: String) throws {
        var query = try itemQuery(account: account, service: service)
        query[kSecAttrGeneric as String] = LegacyTokenCacheKey.generic
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw MSALKeychainTokenCacheStorage.error(status, "delete", group: keychainSharingGroup)
        }
    }

    /// The group's generic passwords: `<team id>.<group>`, as the unified cache names its group.
    private func baseQuery() throws -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                    kSecAttrAccessGroup as String: try unified.accessGroup()]
        if usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue }
        return query
    }

    private func itemQuery(account: String, service: String) throws -> [String: Any] {
        var query = try baseQuery()
        query[kSecAttrAccount as String] = account
        query[kSecAttrService as String] = service
        return query
    }
}
#endif
