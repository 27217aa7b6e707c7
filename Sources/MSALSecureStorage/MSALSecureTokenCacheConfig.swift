public import Foundation
import MSALFileStorage

/// What ``MSALSecureTokenCacheStorage`` may use, and where it keeps the cache.
///
/// The defaults: every encrypted tier on, in the order Secret Service, key file, kernel keyring (a sign-in survives
/// reboots and logouts: the kernel keyring forgets its key at every reboot, so it comes first only when
/// ``prefersKernelKeyring`` or `MSAL_CACHE_KEY_STORE=kernel-keyring` asks), plaintext only when the environment
/// variable `MSAL_CACHE_ALLOW_PLAINTEXT=1` is set, no migration of an existing plaintext cache, files in the directory of
/// `MSALFileTokenCacheStorage.defaultFileURL()` (`$XDG_DATA_HOME/msal-swift/`, else `~/.local/share/msal-swift/`).
public struct MSALSecureTokenCacheConfig: Sendable {
    /// The environment variable that allows the plaintext tier (`1`, `true` or `yes`).
    public static let allowPlaintextVariable = "MSAL_CACHE_ALLOW_PLAINTEXT"
    /// The environment variable that puts the kernel keyring before the key file (`kernel-keyring`).
    public static let keyStoreVariable = "MSAL_CACHE_KEY_STORE"

    /// The Secret Service item; nil turns the Secret Service tier off.
    public var secretService: MSALSecretServiceConfig?
    /// The Secret Service tier's signal file (its lock file is `<file>.lockfile`). To share a cache with an MSAL
    /// for Python application, give its `LibsecretPersistence` location here.
    public var secretServiceSignalFileURL: URL
    /// The encrypted cache file of the kernel keyring and key file tiers.
    public var encryptedFileURL: URL
    /// Whether the kernel keyring tier may be used.
    public var usesKernelKeyring: Bool = true
    /// Whether the kernel keyring tier keeps the key in the session keyring rather than the user keyring.
    public var usesSessionKeyring: Bool = false
    /// Whether the kernel keyring tier comes before the key file tier: the key is then never on disk, and the cache
    /// cannot be read after a reboot (after logout too, with ``usesSessionKeyring``); users sign in again. Off by
    /// default; `MSAL_CACHE_KEY_STORE=kernel-keyring` turns it on too.
    public var prefersKernelKeyring: Bool = false
    /// Whether the key file tier (`<encrypted file>.key`) may be used.
    public var usesKeyFile: Bool = true
    /// Whether the application allows the plaintext tier (`MSAL_CACHE_ALLOW_PLAINTEXT=1` allows it too).
    public var allowsPlaintext: Bool = false
    /// The plaintext cache file: the plaintext tier's file, and the file migrated by ``migratesPlaintextCache``.
    public var plaintextFileURL: URL
    /// Whether an existing plaintext cache is read when the protected cache is empty, encrypted on the next write,
    /// and then removed (logged). Off by default: a plaintext cache is left alone (and a message says so).
    public var migratesPlaintextCache: Bool = false
    /// How long to wait for the cross-process lock.
    public var lockTimeout: TimeInterval = 10
    /// How long the Secret Service may take to answer on the session bus before the tier is skipped: a bus that
    /// starts a keyring on demand (D-Bus activation) may otherwise keep every process waiting for its own limit
    /// (about 25 s) when no keyring can start, as on a headless box. Default 2 s.
    public var secretServiceProbeTimeout: TimeInterval = 2
    /// The environment the chain reads (`DBUS_SESSION_BUS_ADDRESS`, `MSAL_CACHE_ALLOW_PLAINTEXT`, the default
    /// paths' `XDG_DATA_HOME` and `HOME`).
    public var environment: [String: String]

    /// The default configuration for `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        let plaintext = MSALFileTokenCacheStorage.defaultFileURL(environment: environment)
        let directory = plaintext.deletingLastPathComponent()
        self.plaintextFileURL = plaintext
        self.encryptedFileURL = directory.appendingPathComponent("msal_token_cache.bin", isDirectory: false)
        self.secretServiceSignalFileURL = directory.appendingPathComponent("msal_token_cache.signal", isDirectory: false)
        self.secretService = MSALSecretServiceConfig()
    }

    /// Whether the kernel keyring comes first, by the application or by `MSAL_CACHE_KEY_STORE`.
    var kernelKeyringFirst: Bool {
        prefersKernelKeyring || environment[Self.keyStoreVariable]?.lowercased() == "kernel-keyring"
    }

    /// Whether plaintext is allowed, by the application or by `MSAL_CACHE_ALLOW_PLAINTEXT`.
    var plaintextAllowed: Bool {
        allowsPlaintext || ["1", "true", "yes"].contains(environment[Self.allowPlaintextVariable]?.lowercased() ?? "")
    }
}
