#if canImport(Security)
import Foundation
import Security

/// The removal of other applications' token caches on macOS for a sign-out that wipes every account: each location
/// of ``MSALWipeCacheForAllAccountsConfig`` is a generic-password item of the login keychain named by its account,
/// label and service, as MSAL for iOS/macOS removes them (`MSALPublicClientApplication.m:1369-1411`). An item that
/// is not there is no failure; one the keychain refuses to remove (the user did not allow it) is named.
enum PartnerCacheWipe {
    static func remove(_ locations: [String: [String: String]]) -> [String] {
        var failed: [String] = []
        for (name, attributes) in locations {
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
            if let account = attributes[MSALWipeCacheForAllAccountsConfig.account] { query[kSecAttrAccount as String] = account }
            if let label = attributes[MSALWipeCacheForAllAccountsConfig.label] { query[kSecAttrLabel as String] = label }
            if let service = attributes[MSALWipeCacheForAllAccountsConfig.service] { query[kSecAttrService as String] = service }
            // Without an account and a service the query would name too much: such a location is not removed.
            guard query[kSecAttrAccount as String] != nil, query[kSecAttrService as String] != nil else {
                failed.append(name)
                continue
            }
            let status = SecItemDelete(query as CFDictionary)
            if status != errSecSuccess && status != errSecItemNotFound { failed.append(name) }
        }
        return failed
    }
}
#endif
