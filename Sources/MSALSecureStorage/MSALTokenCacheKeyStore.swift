public import Crypto
import Foundation

/// Where an encrypted token cache file keeps its 256-bit key.
///
/// ``MSALEncryptedFileTokenCacheStorage`` calls ``readKey()`` on every read and write, and ``storeKey(_:)`` (under
/// the cache lock) when there is no key yet or the old one is gone.
public protocol MSALTokenCacheKeyStore: Sendable {
    /// The key source recorded in the files this store's keys encrypt.
    var keySource: MSALEncryptedCacheHeader.KeySource { get }
    /// Where the key is, for log messages (never the key).
    var location: String { get }
    /// Throws ``MSALTokenCacheProtectionError/keyStoreUnavailable(_:)`` (or `.keyFileRejected`) when the store
    /// cannot be used here; may leave the store as it found it only.
    func checkAvailable() throws
    /// The key, or nil when there is none (never stored, or lost: a reboot empties the kernel keyring).
    /// Throws when the store cannot be used or the key is refused; a missing key is not an error.
    func readKey() throws -> SymmetricKey?
    /// Stores `key`, replacing any key of this store.
    func storeKey(_ key: SymmetricKey) throws
}

/// The name a key store gives the key of one cache file: `msal-swift:token-cache:<first 32 hex digits of the
/// SHA-256 of the file's path>`.
func keyName(forCacheAt path: String) -> String {
    let digest = SHA256.hash(data: Data(path.utf8))
    return "msal-swift:token-cache:" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
}

/// The bytes of `key`, handed to `body` and wiped afterwards.
func withKeyBytes<T>(_ key: SymmetricKey, _ body: ([UInt8]) throws -> T) rethrows -> T {
    var bytes = key.withUnsafeBytes { [UInt8]($0) }
    defer { wipe(&bytes) }
    return try body(bytes)
}

/// Overwrites `bytes` with zeros.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
        guard let base = raw.baseAddress else { return }
        memset(base, 0, raw.count)
    }
}
