public import Crypto
public import Foundation
import MSALCore

/// Keeps the token cache key in a file beside the cache (`<cache file>.key`): 32 random bytes, mode 0600.
///
/// The file is created complete or not at all (written under a temporary name with `O_CREAT | O_EXCL |
/// O_NOFOLLOW`, then hard-linked to its name, which fails if the name exists), and it is refused when it is
/// a symbolic link or not a regular file, belongs to another user, is readable or writable by group or others,
/// or is not exactly 32 bytes.
///
/// What it protects against: the cache file read or copied alone (a backup, a sync folder, a bug report). What it
/// does not: anyone who can read the user's files reads both files.
public struct MSALKeyFileKeyStore: MSALTokenCacheKeyStore {
    /// The key file.
    public let keyFileURL: URL

    /// A store whose key file is `<cacheFileURL>.key`.
    public init(cacheFileURL: URL) {
        self.init(keyFileURL: URL(fileURLWithPath: cacheFileURL.path + ".key"))
    }

    /// A store whose key is in `keyFileURL`.
    public init(keyFileURL: URL) {
        self.keyFileURL = keyFileURL
    }

    /// ``MSALEncryptedCacheHeader/KeySource/keyFile``.
    public var keySource: MSALEncryptedCacheHeader.KeySource { .keyFile }

    /// `key file <path>`.
    public var location: String { "key file \(keyFileURL.path)" }

    /// Checks an existing key file (owner, mode, size), or that its directory can be created and written.
    public func checkAvailable() throws {
        if try readKey() != nil { return }
        let directory = keyFileURL.deletingLastPathComponent().path
        try makeDirectory(directory)
        guard access(directory, W_OK | X_OK) == 0 else {
            throw MSALTokenCacheProtectionError.keyStoreUnavailable("the directory \(directory) is not writable")
        }
    }

    /// The key, or nil when the key file does not exist.
    public func readKey() throws -> SymmetricKey? {
        let path = keyFileURL.path
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw rejected("\(path) is a symbolic link") }
            throw rejected("\(path) cannot be opened: \(String(cString: strerror(code))) (errno \(code))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw rejected("the status of \(path) cannot be read") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw rejected("\(path) is not a regular file") }
        guard info.st_uid == geteuid() else {
            throw rejected("\(path) belongs to user \(info.st_uid), not to this user (\(geteuid()))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw rejected("\(path) has mode \(String(info.st_mode & 0o777, radix: 8)); it must be 600 (chmod 600)")
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        defer { wipe(&buffer) }
        var filled = 0
        while filled < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw rejected("\(path) cannot be read")
            }
            if n == 0 { break }
            filled += n
        }
        guard filled == 32 else { throw rejected("\(path) does not hold a 256-bit key (\(filled) bytes)") }
        return SymmetricKey(data: buffer[0..<32])
    }

    /// Writes the key to a new file; an existing key file is replaced only after the new one is complete.
    public func storeKey(_ key: SymmetricKey) throws {
        let path = keyFileURL.path
        let directory = keyFileURL.deletingLastPathComponent().path
        try makeDirectory(directory)
        let temporary = directory + "/." + keyFileURL.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw unavailable("create \(temporary)", errno) }
        defer { unlink(temporary) }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw unavailable("protect \(temporary)", errno) }
            try withKeyBytes(key) { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw unavailable("write \(temporary)", errno)
                    }
                    offset += n
                }
            }
            guard fsync(fd) == 0 else { throw unavailable("flush \(temporary)", errno) }
        }
        if link(temporary, path) == 0 { return }
        guard errno == EEXIST else { throw unavailable("create \(path)", errno) }
        // A key file that is gone for the cache (refused, or of another key) is replaced: the caller holds the
        // cache lock and set the old cache aside.
        guard rename(temporary, path) == 0 else { throw unavailable("replace \(path)", errno) }
    }

    /// Removes the key file (tests; a user who wants to forget the cache's key).
    public func removeKey() throws {
        if unlink(keyFileURL.path) != 0 && errno != ENOENT { throw unavailable("remove \(keyFileURL.path)", errno) }
    }

    private func rejected(_ reason: String) -> MSALTokenCacheProtectionError { .keyFileRejected(reason) }

    private func unavailable(_ action: String, _ code: Int32) -> MSALTokenCacheProtectionError {
        .keyStoreUnavailable("could not \(action): \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// Creates `directory` and missing parents, each new one with mode 0700 (``PrivateFiles``).
func makeDirectory(_ directory: String) throws {
    do {
        try PrivateFiles.makeDirectory(directory)
    } catch let error as PrivateFiles.Failure {
        throw MSALTokenCacheProtectionError.keyStoreUnavailable(
            "could not \(error.action): \(String(cString: strerror(error.code))) (errno \(error.code))")
    }
}
