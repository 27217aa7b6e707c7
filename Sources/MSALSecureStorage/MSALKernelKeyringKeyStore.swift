public import Crypto
public import Foundation
import CMSALKeyctl

#if os(Linux)
/// Keeps the token cache key in the Linux kernel keyring (a `user` key, `add_key(2)` / `keyctl(2)`).
///
/// The key lives in kernel memory, never on disk, readable by the user's processes only. Its limits:
/// - it is lost when the machine restarts (and, on some kernels, when the user's last process ends): MSAL then
///   sets the old cache file aside and the user signs in again;
/// - root can read it; containers that share a kernel and a user id may share the user keyring;
/// - many container runtimes forbid these system calls; the chain then moves on to the next tier.
public struct MSALKernelKeyringKeyStore: MSALTokenCacheKeyStore {
    /// Which keyring holds the key.
    public enum Keyring: Sendable {
        /// The user keyring (`@u`): shared by the user's sessions until reboot.
        case user
        /// The session keyring (`@s`): the login session's only.
        case session

        var id: Int32 { self == .user ? MSAL_KEY_SPEC_USER_KEYRING : MSAL_KEY_SPEC_SESSION_KEYRING }
    }

    /// The key's description (its name) in the keyring.
    public let keyName: String
    /// The keyring that holds the key.
    public let keyring: Keyring

    /// A store for the key of the cache file at `cacheFileURL` (its name derives from the file's path).
    public init(cacheFileURL: URL, keyring: Keyring = .user) {
        self.init(keyName: MSALSecureStorage.keyName(forCacheAt: cacheFileURL.path), keyring: keyring)
    }

    /// A store for the key named `keyName`.
    public init(keyName: String, keyring: Keyring = .user) {
        self.keyName = keyName
        self.keyring = keyring
    }

    /// ``MSALEncryptedCacheHeader/KeySource/kernelKeyring``.
    public var keySource: MSALEncryptedCacheHeader.KeySource { .kernelKeyring }

    /// `kernel keyring (<keyring>) key <name>`.
    public var location: String { "kernel \(keyring == .user ? "user" : "session") keyring key \(keyName)" }

    /// Searches for the key; when it is absent, adds and removes a probe key to learn whether the system calls are
    /// allowed.
    public func checkAvailable() throws {
        if try findKey() != nil { return }
        let probe = "msal-swift:probe:\(getpid())"
        let serial = probe.withCString { msal_keyctl_add_user_key($0, "1", 1, keyring.id) }
        guard serial >= 0 else { throw unavailable("add_key", errno) }
        _ = msal_keyctl_invalidate(serial)
    }

    /// The key, or nil when the keyring holds none under ``keyName``.
    public func readKey() throws -> SymmetricKey? {
        guard let serial = try findKey() else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        defer { wipe(&buffer) }
        let count = buffer.withUnsafeMutableBytes { msal_keyctl_read(serial, $0.baseAddress, $0.count) }
        if count < 0 {
            let code = errno
            // Revoked, expired or invalidated between the search and the read: the key is gone.
            if code == ENOKEY || code == EKEYREVOKED || code == EKEYEXPIRED { return nil }
            throw unavailable("keyctl read", code)
        }
        guard count == 32 else {
            throw MSALTokenCacheProtectionError.keyStoreUnavailable("the keyring key \(keyName) is not a 256-bit key")
        }
        return SymmetricKey(data: buffer[0..<32])
    }

    /// Adds the key (or replaces its payload), readable by the user's processes only.
    public func storeKey(_ key: SymmetricKey) throws {
        let serial = withKeyBytes(key) { bytes in
            keyName.withCString { name in
                bytes.withUnsafeBytes { msal_keyctl_add_user_key(name, $0.baseAddress, $0.count, keyring.id) }
            }
        }
        guard serial >= 0 else { throw unavailable("add_key", errno) }
        // Possessor: everything; the user's other processes: view, read, search (they may not hold the keyring).
        _ = msal_keyctl_set_permissions(serial, 0x3f0b_0000)
    }

    /// Removes the key (tests; a user who wants to forget the cache's key).
    public func removeKey() throws {
        guard let serial = try findKey() else { return }
        guard msal_keyctl_invalidate(serial) == 0 else { throw unavailable("keyctl invalidate", errno) }
    }

    private func findKey() throws -> Int32? {
        let serial = keyName.withCString { msal_keyctl_search_user_key(keyring.id, $0) }
        if serial >= 0 { return serial }
        let code = errno
        if code == ENOKEY || code == EKEYREVOKED || code == EKEYEXPIRED { return nil }
        throw unavailable("keyctl search", code)
    }

    private func unavailable(_ call: String, _ code: Int32) -> MSALTokenCacheProtectionError {
        .keyStoreUnavailable("\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
#endif
