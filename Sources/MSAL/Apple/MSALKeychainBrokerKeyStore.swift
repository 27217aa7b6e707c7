#if canImport(Security)
public import Foundation
import Security

/// The broker key (the AES-256 key Microsoft Authenticator encrypts its answers with) and the broker's application
/// tokens in the keychain, in the app's MSAL keychain group (`<team id>.<keychainSharingGroup>`), readable after the
/// first unlock on this device only, as MSAL for iOS/macOS keeps them. Generic-password items: service
/// `com.microsoft.adBrokerKey` (the key), `com.microsoft.adBrokerAppToken` (one item per client id) and
/// `com.microsoft.adBrokerResumeState` (the request waiting for Authenticator's answer), so that they never look like
/// token cache entries. The key is made the first time it is needed and kept: an answer that arrives
/// after the app was relaunched is still decrypted.
public final class MSALKeychainBrokerKeyStore: MSALBrokerKeyStore, @unchecked Sendable {
    static let keyService = "com.microsoft.adBrokerKey"
    static let keyAccount = "broker-key"
    static let tokenService = "com.microsoft.adBrokerAppToken"
    static let pendingService = "com.microsoft.adBrokerResumeState"

    private let cache: MSALKeychainTokenCacheStorage
    private let lock = NSLock()

    /// The store in `keychainSharingGroup` (MSAL's default group of this platform unless given).
    public init(keychainSharingGroup: String = MSALCacheConfig.defaultKeychainSharingGroup()) {
        cache = MSALKeychainTokenCacheStorage(keychainSharingGroup: keychainSharingGroup)
    }

    public func brokerKey() throws -> Data {
        lock.lock()
        defer { lock.unlock() }
        if let key = try read(service: Self.keyService, account: Self.keyAccount), key.count == 32 { return key }
        let key = AuthenticatorBrokerRequest.makeBrokerKey()
        try write(key, service: Self.keyService, account: Self.keyAccount)
        return key
    }

    public func applicationToken(clientId: String) throws -> String? {
        try read(service: Self.tokenService, account: clientId).flatMap { String(data: $0, encoding: .utf8) }
    }

    public func setApplicationToken(_ token: String, clientId: String) throws {
        try write(Data(token.utf8), service: Self.tokenService, account: clientId)
    }

    public func setPendingRequest(_ state: Data?) throws {
        guard let state else {
            let status = SecItemDelete(try query(service: Self.pendingService, account: Self.keyAccount) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw MSALKeychainTokenCacheStorage.error(status, "broker request removal", group: cache.keychainSharingGroup)
            }
            return
        }
        try write(state, service: Self.pendingService, account: Self.keyAccount)
    }

    public func pendingRequest() throws -> Data? {
        try read(service: Self.pendingService, account: Self.keyAccount)
    }

    private func query(service: String, account: String) throws -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                    kSecAttrService as String: service, kSecAttrAccount as String: account,
                                    kSecAttrAccessGroup as String: try cache.accessGroup()]
        if cache.usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue }
        return query
    }

    private func read(service: String, account: String) throws -> Data? {
        var query = try query(service: service, account: account)
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else {
            throw MSALKeychainTokenCacheStorage.error(status, "broker key read", group: cache.keychainSharingGroup)
        }
        return result as? Data
    }

    private func write(_ data: Data, service: String, account: String) throws {
        let query = try query(service: service, account: account)
        let changed: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(query as CFDictionary, changed as CFDictionary)
        if status == errSecItemNotFound {
            var attributes = query
            attributes[kSecValueData as String] = data
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(attributes as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw MSALErrorInfo.internal(.internalErrorBrokerKeyFailedToCreate,
                                         "The broker key could not be kept in the keychain (OSStatus \(status)).")
        }
    }
}
#endif
