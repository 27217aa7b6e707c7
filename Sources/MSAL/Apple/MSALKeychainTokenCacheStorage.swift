#if canImport(Security)
public import Foundation
import Security

/// The token cache in the keychain, in MSAL for iOS/macOS's layout: one generic-password item per cache entry,
/// named by its `account` / `service` / `generic` / `type` attributes, in the access group
/// `<team id>.<keychainSharingGroup>`. The default storage on Apple platforms.
///
/// An app that moves from MSAL for iOS/macOS finds its users signed in, and apps of one team that share a keychain
/// group share sign-in with each other and with MSAL for iOS/macOS apps. The app needs the Keychain Sharing
/// capability with the group (`com.microsoft.adalcache` on iOS and `com.microsoft.identity.universalstorage` on
/// macOS by default); without it every call fails with an ``MSALErrorInfo`` whose underlying error is
/// `NSOSStatusErrorDomain` -34018 (`errSecMissingEntitlement`), as MSAL for iOS/macOS reports it.
///
/// Writing never deletes an item this app did not read as one of its cache entries: other apps' items in the group,
/// items that are not cache entries, and entries another app added since the last read are kept. The keychain has
/// no lock across apps; ``withExclusiveAccess(_:)`` excludes other users of this instance in the process.
public final class MSALKeychainTokenCacheStorage: MSALTokenCacheStorage, @unchecked Sendable {
    /// The keychain sharing group, without the team id.
    public let keychainSharingGroup: String
    /// Whether items live in the data-protection keychain (macOS; iOS has no other).
    public let usesDataProtectionKeychain: Bool

    private struct State {
        var accessGroup: String?
        var base: Set<KeychainItemKey> = []
    }

    private let state = LockedBox(State())
    private let accessLock = NSRecursiveLock()

    /// The account name of the item MSAL for iOS/macOS adds to learn the app's team id from its default access
    /// group (shared, so both find the same item).
    static let teamIdHintAccount = "SDK.ObjC.teamIDHint"

    /// A keychain cache in `keychainSharingGroup` (MSAL for iOS/macOS's default group of this platform unless
    /// given).
    public init(keychainSharingGroup: String = MSALCacheConfig.defaultKeychainSharingGroup(),
                usesDataProtectionKeychain: Bool = MSALKeychainTokenCacheStorage.dataProtectionByDefault) {
        self.keychainSharingGroup = keychainSharingGroup
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
    }

    /// True on macOS, where MSAL for iOS/macOS keeps its items in the data-protection keychain; false elsewhere.
    public static var dataProtectionByDefault: Bool {
        #if canImport(AppKit) && !canImport(UIKit)
        return true
        #else
        return false
        #endif
    }

    // MARK: MSALTokenCacheStorage

    /// The version of the cache entries in the group (a digest of their items); nil when there are none.
    public func currentVersion() throws -> MSALTokenCacheStorageVersion? {
        let items = try storedEntries()
        return items.isEmpty ? nil : Self.version(items)
    }

    /// The cache entries of the group as a unified cache document; nil when there are none.
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        try withExclusiveAccess {
            let items = try storedEntries()
            state.withLock { $0.base = Set(items.map(KeychainItemKey.init)) }
            guard !items.isEmpty else { return nil }
            return (KeychainItemLayout.document(from: items), Self.version(items))
        }
    }

    /// Stores `data`'s entries as items: adds and updates what changed, deletes the entries this app removed.
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        try withExclusiveAccess {
            let desired = KeychainCacheSync.deduplicated(KeychainItemLayout.items(fromDocument: data))
            let stored = try storedEntries()
            let base = state.withLock { $0.base }
            let changes = KeychainCacheSync.changes(stored: stored, base: base, desired: desired)
            let group = try accessGroup()
            for item in changes.update { try save(item, group: group, exists: true) }
            for item in changes.add { try save(item, group: group, exists: false) }
            for key in changes.delete {
                let status = SecItemDelete(itemQuery(account: key.account, service: key.service, group: group) as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else {
                    throw Self.error(status, "delete", group: group)
                }
            }
            state.withLock { $0.base = Set(desired.map(KeychainItemKey.init)) }
            return Self.version(desired)
        }
    }

    /// Nothing is set aside: an item MSAL cannot read is left where it is and skipped.
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? { nil }

    /// Runs `body` holding this instance's lock (the keychain has no lock across processes).
    public func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T {
        accessLock.lock()
        defer { accessLock.unlock() }
        return try body()
    }

    // MARK: Keychain calls

    /// The access group `<team id>.<keychainSharingGroup>`; the team id read, as MSAL for iOS/macOS reads it, from
    /// the default access group of a marker item (added once if missing).
    func accessGroup() throws -> String {
        if let known = state.withLock({ $0.accessGroup }) { return known }
        let teamId = try Self.teamId(dataProtection: usesDataProtectionKeychain, group: keychainSharingGroup)
        let group = "\(teamId).\(keychainSharingGroup)"
        state.withLock { $0.accessGroup = group }
        return group
    }

    /// The app's team id, read as MSAL for iOS/macOS reads it (`MSIDKeychainUtil`): the prefix of the default access
    /// group of a marker item (`SDK.ObjC.teamIDHint`, added once if missing). `group` names the sharing group an
    /// error's advice mentions.
    static func teamId(dataProtection: Bool, group: String) throws -> String {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        if dataProtection { query[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue }
        query[kSecAttrAccount as String] = teamIdHintAccount
        query[kSecAttrService as String] = ""
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        var result: CFTypeRef?
        var status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound {
            query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(query as CFDictionary, &result)
        }
        guard status == errSecSuccess else { throw error(status, "team id lookup", group: group) }
        guard let attributes = result as? [String: Any],
              let defaultGroup = attributes[kSecAttrAccessGroup as String] as? String,
              let teamId = defaultGroup.split(separator: ".").first, !teamId.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                         "The keychain did not report the app's default access group (team id).")
        }
        return String(teamId)
    }

    /// Every cache entry item of the group (other items are skipped).
    func storedEntries() throws -> [KeychainCacheItem] {
        let group = try accessGroup()
        return try Self.allItems(matching: baseQuery(group: group), group: group).compactMap { attributes in
            guard let account = attributes[kSecAttrAccount as String] as? String,
                  let service = attributes[kSecAttrService as String] as? String,
                  let data = attributes[kSecValueData as String] as? Data else { return nil }
            let generic = (attributes[kSecAttrGeneric as String] as? Data).flatMap { String(data: $0, encoding: .utf8) }
                ?? attributes[kSecAttrGeneric as String] as? String
            let type = (attributes[kSecAttrType as String] as? NSNumber)?.intValue ?? 0
            return KeychainItemLayout.storedEntry(account: account, service: service, generic: generic, type: type,
                                                  data: data)
        }
    }

    /// Every item `query` matches, with its attributes and data (none when there is none); a failure is the
    /// keychain's error, `group` named in its advice.
    static func allItems(matching query: [String: Any], group: String) throws -> [[String: Any]] {
        var query = query
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw error(status, "read", group: group) }
        return result as? [[String: Any]] ?? []
    }

    /// Updates the item in place (or adds it when it is gone), or adds it (or updates it when it appeared).
    private func save(_ item: KeychainCacheItem, group: String, exists: Bool) throws {
        let data = KeychainItemLayout.valueData(item)
        var changed: [String: Any] = [kSecValueData as String: data, kSecAttrType as String: NSNumber(value: item.type)]
        if let generic = item.generic { changed[kSecAttrGeneric as String] = Data(generic.utf8) }
        let query = itemQuery(account: item.account, service: item.service, group: group)
        if exists {
            let status = SecItemUpdate(query as CFDictionary, changed as CFDictionary)
            if status == errSecSuccess { return }
            guard status == errSecItemNotFound else { throw Self.error(status, "update", group: group) }
        }
        var attributes = query
        attributes.merge(changed) { $1 }
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(attributes as CFDictionary, nil)
        if status == errSecDuplicateItem, !exists {
            let updated = SecItemUpdate(query as CFDictionary, changed as CFDictionary)
            guard updated == errSecSuccess else { throw Self.error(updated, "update", group: group) }
            return
        }
        guard status == errSecSuccess else { throw Self.error(status, "add", group: group) }
    }

    private func baseQuery(group: String? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        if let group { query[kSecAttrAccessGroup as String] = group }
        if usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue }
        return query
    }

    private func itemQuery(account: String, service: String, group: String) -> [String: Any] {
        var query = baseQuery(group: group)
        query[kSecAttrAccount as String] = account
        query[kSecAttrService as String] = service
        return query
    }

    // MARK: Errors and versions

    /// The error of a failed keychain call, as MSAL for iOS/macOS reports it: the `NSOSStatusErrorDomain` error with
    /// the status as code (the underlying error), and what to do about a missing entitlement.
    static func error(_ status: OSStatus, _ operation: String, group: String) -> MSALErrorInfo {
        let message = SecCopyErrorMessageString(status, nil).map { String(describing: $0) } ?? "OSStatus \(status)"
        var description = "The keychain \(operation) failed: \(message) (OSStatus \(status))."
        if status == errSecMissingEntitlement {
            description += " Add the keychain group '\(group)' to the app's Keychain Sharing capability "
                + "(keychain-access-groups entitlement) and sign the app."
        }
        let underlying = NSError(domain: "NSOSStatusErrorDomain", code: Int(status),
                                 userInfo: [NSLocalizedDescriptionKey: message])
        return MSALErrorInfo(.internal, description: description, underlyingError: underlying)
    }

    private static func version(_ items: [KeychainCacheItem]) -> MSALTokenCacheStorageVersion {
        MSALTokenCacheStorageVersion(identity: UInt64(bitPattern: Int64(KeychainCacheSync.digest(items))),
                                     size: Int64(items.count), modificationTime: 0)
    }
}
#endif
