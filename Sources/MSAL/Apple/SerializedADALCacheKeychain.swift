#if canImport(AppKit) && !canImport(UIKit) && canImport(Security)
import Foundation
import Security

extension MSALSerializedADALCacheProvider {
    /// A provider that keeps ADAL's serialized cache in one generic-password item of the login keychain, as MSAL for
    /// iOS/macOS's does (`MSIDMacLegacyCachePersistenceHandler`): the item named by `keychainAttributes` (at least
    /// `kSecAttrService` and `kSecAttrAccount`, as ADAL for macOS's own cache names it; `kSecAttrLabel` too when
    /// given), read before each use and written after each change.
    ///
    /// `trustedApplications` and `accessLabel` are accepted for code written for MSAL for iOS/macOS; the item gets the
    /// keychain's default access (the app that made it), as the access-control API that took them is deprecated.
    /// Throws ``MSALInternalError/internalErrorInvalidParameter`` without a service or an account.
    public convenience init(keychainAttributes: [String: Any], trustedApplications: [Any], accessLabel: String) throws {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        for name in [kSecAttrService as String, kSecAttrAccount as String, kSecAttrLabel as String] {
            if let value = keychainAttributes[name] as? String { query[name] = value }
        }
        guard query[kSecAttrService as String] != nil, query[kSecAttrAccount as String] != nil else {
            throw MSALErrorInfo.invalidParameter("The ADAL cache's keychain attributes need a service and an account.")
        }
        let item = ADALCacheKeychainItem(query: query)
        self.init(persistence: .store(load: { try item.load() }, save: { try item.save($0) }))
    }
}

/// The login-keychain item of a serialized ADAL cache.
private struct ADALCacheKeychainItem: @unchecked Sendable {
    let query: [String: Any]

    func load() throws -> Data? {
        var search = query
        search[kSecReturnData as String] = kCFBooleanTrue
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw Self.error(status, "read") }
        return result as? Data
    }

    func save(_ data: Data) throws {
        var status = SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if status == errSecItemNotFound {
            var attributes = query
            attributes[kSecValueData as String] = data
            status = SecItemAdd(attributes as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw Self.error(status, "write") }
    }

    static func error(_ status: OSStatus, _ operation: String) -> MSALErrorInfo {
        let underlying = NSError(domain: "NSOSStatusErrorDomain", code: Int(status))
        return MSALErrorInfo(.internal, description: "The ADAL cache's keychain \(operation) failed (OSStatus \(status)).",
                             underlyingError: underlying)
    }
}
#endif
