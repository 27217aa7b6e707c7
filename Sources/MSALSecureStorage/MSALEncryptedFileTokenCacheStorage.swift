import Crypto
public import Foundation
public import Logging
public import MSALCore
import MSALFileStorage

/// A token cache in an AES-256-GCM encrypted file (``MSALEncryptedCacheHeader`` describes the format), whose key
/// is kept by an ``MSALTokenCacheKeyStore``: the kernel keyring or a key file.
///
/// The file itself is written, versioned, locked and set aside exactly like ``MSALFileTokenCacheStorage`` (mode
/// 0600, temporary file + fsync + rename, msal-extensions' `<file>.lockfile` lock, one `stat` per version check).
///
/// Reading never destroys anything:
/// - a bad header, a file cut short, another key than the store's, or a tag that does not match (the file was
///   changed) throws an ``MSALErrorInfo`` whose underlying error is an ``MSALTokenCacheProtectionError``; the file
///   is left as it is and is not overwritten (MSAL writes only after a successful read);
/// - a key store that cannot be used (a refused system call, a refused key file) throws likewise;
/// - only when the key is **gone** (the store is usable but holds no key, for example after a reboot) is the cache
///   read as empty, with a warning; the next write (under the lock) moves the old file aside to
///   `<file>.corrupt-<epoch ms>`, makes a new key and writes the new cache with it.
public final class MSALEncryptedFileTokenCacheStorage: MSALTokenCacheStorage {
    /// The encrypted cache file.
    public let fileURL: URL
    /// Where the key is kept.
    public let keyStore: any MSALTokenCacheKeyStore

    let file: MSALFileTokenCacheStorage
    private let log: MSALLog
    /// The file version whose lost key was already reported (one warning per file, not per read).
    private let reportedLostKey = LockedBox<MSALTokenCacheStorageVersion?>(nil)

    /// A storage for the encrypted file at `fileURL`, keyed by `keyStore`.
    ///
    /// - Parameters:
    ///   - lockTimeout: how long to wait for the cross-process lock (default 10 seconds).
    ///   - logger: where warnings go (a lost key, a cache set aside); MSAL's default logger when nil.
    public init(fileURL: URL, keyStore: any MSALTokenCacheKeyStore, lockTimeout: TimeInterval = 10,
                logger: Logger? = nil) {
        self.fileURL = fileURL
        self.keyStore = keyStore
        // Through a symbolic link, only a file that already is an encrypted cache is replaced.
        self.file = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: lockTimeout,
                                              recognizes: { (try? MSALEncryptedCacheHeader.parse($0)) != nil })
        self.log = logger.map { MSALLog(logger: $0, settings: MSALLog.Settings(MSALGlobalConfig.loggerConfig)) } ?? MSALLog()
    }

    /// The file's inode, size and modification time (one `stat`); nil when there is no file.
    public func currentVersion() throws -> MSALTokenCacheStorageVersion? {
        try file.currentVersion()
    }

    /// The decrypted cache document; an empty document when the key is gone (see the type's description).
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        guard let stored = try file.read() else { return nil }
        let header = try checked { try MSALEncryptedCacheHeader.parse(stored.data) }
        guard header.keySource == keyStore.keySource, let key = try checked({ try keyStore.readKey() }) else {
            reportLostKey(stored.version, header: header)
            return (Data("{}".utf8), stored.version)
        }
        let document = try checked { try EncryptedCacheFile.open(stored.data, header: header, key: key) }
        return (document, stored.version)
    }

    /// Encrypts `data` with the store's key and writes it atomically. Called under the lock. Makes a key when there
    /// is none, first moving aside a file whose key is gone; refuses to replace a file it cannot tell is its own
    /// (bad header, another key).
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        try write(data, migratingFrom: nil)
    }

    /// ``write(_:)``; a file encrypted with the key of `migratingFrom` (just read with it) is replaced in place
    /// instead of being moved aside as a file whose key is gone.
    func write(_ data: Data, migratingFrom: MSALEncryptedCacheHeader.KeySource?) throws -> MSALTokenCacheStorageVersion {
        var key = try checked { try keyStore.readKey() }
        if let version = try file.currentVersion() {
            // The header is enough to tell whose file this is (the lock is held: the file stays as it is).
            let head = try FileHandle(forReadingFrom: fileURL).readHeader()
            let header = try checked { try MSALEncryptedCacheHeader.parse(prefix: head, fileLength: Int(version.size)) }
            let keyIsGone = key == nil || header.keySource != keyStore.keySource
            if keyIsGone, let migratingFrom, header.keySource == migratingFrom {
                // Re-encrypted under this store's key: the file is replaced below.
            } else if keyIsGone {
                if let place = try file.setAside(version: version) {
                    log.warning("The key of the encrypted token cache \(fileURL.path) is gone (\(keyStore.location)); "
                                + "the old cache was moved aside to \(place) and a new key is used.")
                }
            } else if let key, EncryptedCacheFile.keyId(key) != header.keyId {
                throw MSALTokenCacheProtectionError.wrongKey.errorInfo(file: fileURL.path)
            }
        }
        if key == nil {
            let newKey = SymmetricKey(size: .bits256)
            try checked { try keyStore.storeKey(newKey) }
            log.info("Made a new key for the encrypted token cache in the \(keyStore.location).")
            key = newKey
        }
        guard let key else { throw MSALTokenCacheProtectionError.keyStoreUnavailable("no key").errorInfo(file: fileURL.path) }
        let sealed = try EncryptedCacheFile.seal(data, key: key, source: keyStore.keySource)
        return try file.write(sealed)
    }

    /// Renames the file to `<file>.corrupt-<epoch ms>` if it is still at `version` (MSAL calls this only for a
    /// document that decrypted but does not parse).
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? {
        try file.setAside(version: version)
    }

    /// Runs `body` holding the cache file's cross-process lock (``MSALFileTokenCacheStorage``'s).
    public func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T {
        try file.withExclusiveAccess(body)
    }

    private func reportLostKey(_ version: MSALTokenCacheStorageVersion, header: MSALEncryptedCacheHeader) {
        let isNew = reportedLostKey.withLock { reported -> Bool in
            defer { reported = version }
            return reported != version
        }
        guard isNew else { return }
        let source = header.keySource == .kernelKeyring ? "the kernel keyring" : "a key file"
        log.warning("The key of the encrypted token cache \(fileURL.path) is gone (it was kept in \(source); "
                    + "now looked for in the \(keyStore.location)): the cache is read as empty and the user signs in "
                    + "again. The old file is moved aside on the next write.")
    }

    /// Runs `body`, reporting an ``MSALTokenCacheProtectionError`` as an ``MSALErrorInfo`` naming the file.
    private func checked<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MSALTokenCacheProtectionError {
            throw error.errorInfo(file: fileURL.path)
        }
    }
}

extension FileHandle {
    /// The first ``MSALEncryptedCacheHeader/size`` bytes (fewer if the file is shorter); closes the handle.
    fileprivate func readHeader() throws -> Data {
        defer { try? close() }
        return try read(upToCount: MSALEncryptedCacheHeader.size) ?? Data()
    }
}
