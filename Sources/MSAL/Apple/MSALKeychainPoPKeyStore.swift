#if canImport(Security)
import Foundation
import Security

/// The proof-of-possession key in the keychain, as MSAL for iOS/macOS keeps it, so that an app moving from it keeps
/// its key and the tokens bound to it: one RSA-2048 private key item, tag `com.microsoft.token.private.key`, label
/// `com.microsoft.token.key`, not extractable, readable after the first unlock on this device only, in the app's MSAL
/// keychain group (`<team id>.<keychainSharingGroup>`; on macOS in the data-protection keychain)
/// (`MSIDConstants.m:66-67`, `MSIDAssymetricKeyLookupAttributes.m:30-66`, `MSIDAssymetricKeyKeychainGenerator.m:42-130`
/// and `:268-273`). The private key never leaves the keychain: requests are signed with `SecKeyCreateSignature`
/// (RSASSA-PKCS1-v1_5 with SHA-256, RS256). The key is made on first use and read once per store.
public final class MSALKeychainPoPKeyStore: MSALPoPKeyStore, @unchecked Sendable {
    /// MSAL's tag of the private key (`MSID_POP_TOKEN_PRIVATE_KEY`) and label of the pair (`MSID_POP_TOKEN_KEY_LABEL`).
    static let privateKeyTag = "com.microsoft.token.private.key"
    static let keyLabel = "com.microsoft.token.key"

    private let cache: MSALKeychainTokenCacheStorage
    private let lock = NSLock()
    private var kept: MSALPoPKeyPair?

    /// The store in `keychainSharingGroup` (MSAL's default group of this platform unless given).
    public init(keychainSharingGroup: String = MSALCacheConfig.defaultKeychainSharingGroup()) {
        cache = MSALKeychainTokenCacheStorage(keychainSharingGroup: keychainSharingGroup)
    }

    /// The kept key, else the keychain's, else a new one stored from now on.
    ///
    /// - Throws: ``MSALErrorInfo`` when the keychain refuses (no entitlement for the group, a locked device) or its key
    ///   is not an RSA key of 2048 bits or more.
    public func keyPair() throws -> MSALPoPKeyPair {
        try lock.withLock {
            if let kept { return kept }
            let key = try read() ?? make()
            kept = key
            return key
        }
    }

    /// A new key in place of the old one (MSAL removes the item before making a key).
    public func rotate() throws -> MSALPoPKeyPair {
        try lock.withLock {
            let key = try make()
            kept = key
            return key
        }
    }

    /// The common part of every query: the group and, on macOS, the data-protection keychain.
    private func base() throws -> [String: Any] {
        var query: [String: Any] = [kSecAttrAccessGroup as String: try cache.accessGroup()]
        if MSALKeychainTokenCacheStorage.dataProtectionByDefault {
            query[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue
        }
        return query
    }

    /// The private key item's query (`privateKeyAttributes`).
    private func itemQuery() throws -> [String: Any] {
        var query = try base()
        query[kSecClass as String] = kSecClassKey
        query[kSecAttrApplicationTag as String] = Data(Self.privateKeyTag.utf8)
        query[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA
        return query
    }

    private func read() throws -> MSALPoPKeyPair? {
        var query = try itemQuery()
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecReturnRef as String] = kCFBooleanTrue
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw failure(status, "read") }
        guard let attributes = result as? [String: Any], let reference = attributes[kSecValueRef as String] else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The keychain's proof-of-possession key has no reference.")
        }
        return try pair(reference as! SecKey)
    }

    private func make() throws -> MSALPoPKeyPair {
        let removal = SecItemDelete(try itemQuery() as CFDictionary)
        guard removal == errSecSuccess || removal == errSecItemNotFound else { throw failure(removal, "removal") }
        var attributes = try base()
        attributes[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA
        attributes[kSecAttrKeySizeInBits as String] = 2048
        attributes[kSecAttrLabel as String] = Self.keyLabel
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        attributes[kSecPrivateKeyAttrs as String] = [
            kSecAttrIsPermanent as String: kCFBooleanTrue as Any,
            kSecAttrApplicationTag as String: Data(Self.privateKeyTag.utf8),
            kSecAttrIsSensitive as String: kCFBooleanTrue as Any,
            kSecAttrIsExtractable as String: kCFBooleanFalse as Any,
        ] as [String: Any]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            let code = error?.takeRetainedValue().code ?? Int(errSecParam)
            throw failure(OSStatus(truncatingIfNeeded: code), "creation")
        }
        return try pair(key)
    }

    /// The pair of a keychain private key: its public key exported (PKCS #1), signing through the keychain.
    private func pair(_ key: SecKey) throws -> MSALPoPKeyPair {
        var error: Unmanaged<CFError>?
        guard let publicKey = SecKeyCopyPublicKey(key),
              let exported = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            _ = error?.takeRetainedValue()
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The keychain's proof-of-possession public key could not be read.")
        }
        let signing = KeychainSigningKey(key: key)
        return try MSALPoPKeyPair(publicKeyDER: exported, algorithm: .RS256) { try signing.signature(for: $0) }
    }

    private func failure(_ status: OSStatus, _ what: String) -> MSALErrorInfo {
        MSALKeychainTokenCacheStorage.error(status, "proof-of-possession key \(what)", group: cache.keychainSharingGroup)
    }
}

/// A keychain private key signing as RS256 (`SecKeyCreateSignature`, PKCS #1 v1.5 over the message's SHA-256).
private struct KeychainSigningKey: @unchecked Sendable {
    let key: SecKey

    func signature(for data: Data) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, data as CFData, &error) else {
            let underlying = error?.takeRetainedValue()
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The proof-of-possession key could not sign"
                                         + (underlying.map { ": \($0.localizedDescription)" } ?? "."))
        }
        return signature as Data
    }
}
#endif
