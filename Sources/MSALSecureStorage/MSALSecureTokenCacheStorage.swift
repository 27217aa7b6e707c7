public import Foundation
public import Logging
public import MSALCore
import MSALFileStorage

/// The token cache encrypted at rest, with the best protection this machine offers, chosen once when it is
/// created:
///
/// 1. the **Secret Service** (``MSALSecretServiceTokenCacheStorage``), when there is a D-Bus session bus, libsecret
///    loads and a probe item can be stored (the keyring is unlocked);
/// 2. an **encrypted file keyed from the kernel keyring** (``MSALEncryptedFileTokenCacheStorage`` with
///    ``MSALKernelKeyringKeyStore``), when the keyring system calls are allowed: SSH sessions, containers, CI, WSL;
/// 3. an **encrypted file keyed from a 0600 key file** (``MSALKeyFileKeyStore``);
/// 4. a **plaintext file** (``MSALFileTokenCacheStorage``), only when ``MSALSecureTokenCacheConfig/allowsPlaintext``
///    or `MSAL_CACHE_ALLOW_PLAINTEXT=1` allows it;
/// 5. otherwise tokens are kept in memory only (logged as an error).
///
/// Each step is logged once, with why it was or was not used; ``protection`` and ``steps`` tell the same to the
/// application (for a status display).
public final class MSALSecureTokenCacheStorage: MSALTokenCacheStorage {
    /// The tier in use.
    public let protection: MSALTokenCacheProtection
    /// Every tier considered, in order, with why it was or was not used.
    public let steps: [MSALTokenCacheProtectionStep]
    /// The storage of the tier in use.
    public let storage: any MSALTokenCacheStorage

    private let migration: PlaintextMigration?

    /// Chooses the tier for `configuration`, logging each step to `logger` (MSAL's default logger when nil).
    public convenience init(configuration: MSALSecureTokenCacheConfig = MSALSecureTokenCacheConfig(), logger: Logger? = nil) {
        self.init(configuration: configuration, logger: logger, backends: .system)
    }

    init(configuration: MSALSecureTokenCacheConfig, logger: Logger?, backends: ProtectionBackends) {
        let log = logger.map { MSALLog(logger: $0, settings: MSALLog.Settings(MSALGlobalConfig.loggerConfig)) } ?? MSALLog()
        var chooser = TierChooser(configuration: configuration, backends: backends, logger: logger)
        let (protection, storage) = chooser.choose()
        self.protection = protection
        self.storage = storage
        self.steps = chooser.steps
        for step in chooser.steps {
            let message = "Token cache protection: \(step)."
            if step.isUsed {
                switch step.protection {
                case .memoryOnly: log.error(message)
                case .plaintext: log.warning(message)
                default: log.info(message)
                }
            } else {
                log.info(message)
            }
        }
        let legacy = configuration.plaintextFileURL
        let legacyExists = FileManager.default.fileExists(atPath: legacy.path)
        if protection.isEncrypted, configuration.migratesPlaintextCache {
            migration = PlaintextMigration(file: MSALFileTokenCacheStorage(fileURL: legacy, lockTimeout: configuration.lockTimeout),
                                           protection: protection, log: log)
        } else {
            migration = nil
            if protection.isEncrypted && legacyExists {
                log.info("An unencrypted token cache exists at \(legacy.path); it is not read "
                         + "(set migratesPlaintextCache to encrypt it into the \(protection) cache).")
            }
        }
    }

    /// The chosen storage's version; while a plaintext cache waits to be migrated, that file's version.
    public func currentVersion() throws -> MSALTokenCacheStorageVersion? {
        if let version = try storage.currentVersion() { return version }
        return try migration?.file.currentVersion()
    }

    /// The chosen storage's cache; while it is empty and a plaintext cache waits to be migrated, that cache.
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        if try storage.currentVersion() == nil, let migration, let plaintext = try migration.file.read() {
            migration.readForMigration(plaintext.version)
            return plaintext
        }
        return try storage.read()
    }

    /// Writes to the chosen storage; then removes a migrated plaintext cache.
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        let version = try storage.write(data)
        migration?.finish()
        return version
    }

    /// Sets aside the chosen storage's data (or a plaintext cache waiting to be migrated that cannot be read).
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? {
        if try storage.currentVersion() == nil, let migration { return try migration.file.setAside(version: version) }
        return try storage.setAside(version: version)
    }

    /// Runs `body` holding the chosen storage's cross-process lock.
    public func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T {
        try storage.withExclusiveAccess(body)
    }
}

/// Moves a plaintext cache into a protected one: read while the protected cache is empty, removed after the first
/// protected write.
private final class PlaintextMigration: Sendable {
    let file: MSALFileTokenCacheStorage
    let protection: MSALTokenCacheProtection
    let log: MSALLog
    /// The version of the plaintext cache that was read to be migrated.
    private let pending = LockedBox<MSALTokenCacheStorageVersion?>(nil)

    init(file: MSALFileTokenCacheStorage, protection: MSALTokenCacheProtection, log: MSALLog) {
        self.file = file
        self.protection = protection
        self.log = log
    }

    func readForMigration(_ version: MSALTokenCacheStorageVersion) {
        let isNew = pending.withLock { current in defer { current = version }; return current != version }
        guard isNew else { return }
        log.info("Reading the unencrypted token cache \(file.fileURL.path) to migrate it: it is encrypted "
                 + "(\(protection)) on the next write and then removed.")
    }

    /// Removes the plaintext cache if it was read for migration and has not changed since.
    func finish() {
        let path = file.fileURL.path
        guard let version = pending.withLock({ current in defer { current = nil }; return current }) else { return }
        guard (try? file.currentVersion()) == version else {
            log.warning("The unencrypted token cache \(path) changed while it was being migrated; it was left in place.")
            return
        }
        // The legacy file itself (a link there is removed, its target is not the library's), never a directory.
        if unlink(path) == 0 {
            log.info("Migrated the token cache: the unencrypted file \(path) was encrypted (\(protection)) and removed.")
        } else {
            log.warning("The token cache was encrypted (\(protection)), but the unencrypted file \(path) could not be "
                        + "removed: \(String(cString: strerror(errno))).")
        }
    }
}
