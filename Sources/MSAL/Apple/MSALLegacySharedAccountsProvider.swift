#if canImport(UIKit) && canImport(Security)
import Foundation
import Security

/// Whether ``MSALLegacySharedAccountsProvider`` only reads the shared-accounts list or also records sign-ins and
/// sign-outs in it.
public enum MSALLegacySharedAccountMode: Int, Sendable {
    /// Accounts are read; nothing is written (the default).
    case readOnly = 0
    /// Sign-ins and removals are recorded too.
    case readWrite = 1
}

/// The shared-accounts list Microsoft's iOS apps keep in a keychain group (one item per list version,
/// `AccountsV1`…`AccountsV3`, under the service `serviceIdentifier`), as MSAL for iOS/macOS's
/// `MSALLegacySharedAccountsProvider`: add it with ``MSALCacheConfig/addExternalAccountProvider(_:)`` and its
/// accounts join the account lookups; in ``MSALLegacySharedAccountMode/readWrite`` mode each sign-in marks the account
/// signed in for this app and each removal signs it out (or deletes it, for a wipe).
public final class MSALLegacySharedAccountsProvider: MSALExternalAccountProviding, @unchecked Sendable {
    /// Read only (the default), or read and write.
    public var sharedAccountMode: MSALLegacySharedAccountMode {
        get { mode.get() }
        set { mode.set(newValue) }
    }

    private let mode = LockedBox(MSALLegacySharedAccountMode.readOnly)
    private let group: String
    private let service: String
    private let applicationIdentifier: String
    private let lock = NSLock()

    /// A provider of the list in `sharedKeychainAccessGroup` (the team id is added when missing) under the service
    /// `serviceIdentifier`; `applicationIdentifier` names this app in the entries it writes.
    public init(sharedKeychainAccessGroup: String, serviceIdentifier: String, applicationIdentifier: String) {
        group = sharedKeychainAccessGroup
        service = serviceIdentifier
        self.applicationIdentifier = applicationIdentifier
    }

    public func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [any MSALAccountProtocol] {
        try lock.withLock {
            var lists: [Int: LegacySharedAccounts.List] = [:]
            for version in LegacySharedAccounts.versions {
                if let list = LegacySharedAccounts.List(try read(version)) { lists[version] = list }
            }
            return LegacySharedAccounts.accounts(lists, parameters: parameters, bundleId: Self.bundleId)
        }
    }

    public func update(_ account: any MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws {
        guard sharedAccountMode == .readWrite else { return }
        let claims = idTokenClaims.reduce(into: [String: Any]()) { result, pair in
            if let key = pair.key as? String { result[key] = pair.value }
        }
        try rewrite { list, version in
            LegacySharedAccounts.updated(list, version: version, account: account, claims: claims, bundleId: Self.bundleId,
                                         appName: applicationIdentifier, now: Date(), newId: { UUID().uuidString })
        }
    }

    public func remove(_ account: any MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws {
        guard sharedAccountMode == .readWrite else { return }
        var objectIds = (tenantProfiles ?? []).compactMap(\.identifier)
        if objectIds.isEmpty, let oid = account.accountClaims?["oid"] as? String { objectIds = [oid] }
        guard !objectIds.isEmpty else { return }
        try rewrite { list, version in
            LegacySharedAccounts.removed(list, version: version, objectIds: objectIds, wipe: wipeAccount,
                                         bundleId: Self.bundleId, appName: applicationIdentifier, now: Date())
        }
    }

    /// Rewrites every version (V1 to V3), each stamped one second after the one before, as MSAL writes them.
    private func rewrite(_ change: (LegacySharedAccounts.List, Int) -> LegacySharedAccounts.List) throws {
        try lock.withLock {
            let now = Date().timeIntervalSince1970.rounded(.down)
            for (offset, version) in LegacySharedAccounts.versions.enumerated() {
                let list = LegacySharedAccounts.List(try read(version)) ?? LegacySharedAccounts.List()
                try write(change(list, version).data(timestamp: now + Double(offset)), version: version)
            }
        }
    }

    private static var bundleId: String { Bundle.main.bundleIdentifier ?? "" }

    // MARK: Keychain

    private func query(_ version: Int) throws -> [String: Any] {
        let teamId = try MSALKeychainTokenCacheStorage.teamId(dataProtection: false, group: group)
        let accessGroup = group.hasPrefix("\(teamId).") ? group : "\(teamId).\(group)"
        return [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: accessGroup,
                kSecAttrService as String: service, kSecAttrAccount as String: LegacySharedAccounts.itemAccount(version: version)]
    }

    private func read(_ version: Int) throws -> Data? {
        var search = try query(version)
        search[kSecReturnData as String] = kCFBooleanTrue
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw MSALKeychainTokenCacheStorage.error(status, "read", group: group) }
        let found = result as? [Data] ?? (result as? Data).map { [$0] } ?? []
        guard found.count <= 1 else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "Ambiguous query for external accounts, found multiple accounts.")
        }
        return found.first
    }

    private func write(_ data: Data, version: Int) throws {
        let item = try query(version)
        var status = SecItemUpdate(item as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if status == errSecItemNotFound {
            var attributes = item
            attributes[kSecValueData as String] = data
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(attributes as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw MSALKeychainTokenCacheStorage.error(status, "write", group: group) }
    }
}
#endif
