public import Foundation
public import MSALCore

/// A token cache in a plain JSON file, shared safely between processes, in the format (and with the
/// locking protocol) of MSAL for Python with msal-extensions' `FilePersistence`.
///
/// - The file is readable and writable by its owner only (mode 0600); a missing directory is created
///   with mode 0700.
/// - Writes are atomic: the new document goes to a temporary file created exclusively (unpredictable name) in
///   the same directory, is flushed to disk, and is renamed over the cache file. A replaced file keeps its mode
///   if that is narrower than 0600; it is never widened.
/// - Only a token cache is ever changed. A symbolic link at the path is followed only to a regular file that
///   already holds a token cache (MSAL for Python's write-through behaviour for a link to another cache): that
///   file is replaced and the link stays. A link to anything else or to nothing, or another kind of file at the
///   path, is an error that names the path, and nothing is touched or created.
/// - A directory writable by other users without the sticky bit, or a cache file writable by them, gets a
///   warning (once per storage).
/// - ``withExclusiveAccess(_:)`` holds the lock of msal-extensions: `<file>.lockfile`, created exclusively,
///   holding `"<pid> <program>"`, deleted on release, retried every 0.25 seconds; plus a kernel lock (`flock`)
///   on it and on the cache directory. A lock file left behind by a process that no longer runs is removed.
///   Processes using MSAL for Swift, MSAL for Python or the Azure CLI on one file exclude each other.
/// - Changes by other processes are detected from the file's inode, size and modification time.
/// - A regular file at the path that MSAL cannot read is renamed to `<file>.corrupt-<epoch milliseconds>` by
///   ``setAside(version:)``, never overwritten, and ``setAsideHandler`` is told. A link's target is never
///   renamed.
///
/// The file is not encrypted: protect it like an SSH key.
public final class MSALFileTokenCacheStorage: MSALTokenCacheStorage {
    /// The cache file.
    public let fileURL: URL
    /// How long ``withExclusiveAccess(_:)`` waits for another process to release the lock.
    public let lockTimeout: TimeInterval

    /// Called after an unreadable cache file was moved aside, with the cache file and where it went, so
    /// that an application can tell its user (MSAL also logs a warning).
    public let setAsideHandler: (@Sendable (_ file: URL, _ movedTo: URL) -> Void)?

    private let path: String
    private let lockPath: String
    let cachePath: CacheFilePath
    /// Whether the exposure warnings (``CacheFilePath/exposureWarnings()``) were given.
    private let warned = LockedBox(false)
    /// How many calls are waiting now for another process's refresh lock.
    let refreshLockWaits = LockedBox(0)

    /// How many calls of this storage are waiting now for a refresh lock another process holds (for tests that act
    /// on a waiting call).
    package var refreshLockWaiters: Int { refreshLockWaits.get() }

    /// A storage for the cache file at `fileURL` (by default ``defaultFileURL(environment:)``).
    ///
    /// - Parameters:
    ///   - fileURL: the cache file; its directory is created (mode 0700) on the first write if missing.
    ///   - lockTimeout: how long to wait for the cross-process lock before failing (default 10 seconds).
    ///   - setAsideHandler: called after an unreadable cache file was moved aside (see ``setAside(version:)``).
    public convenience init(fileURL: URL = MSALFileTokenCacheStorage.defaultFileURL(), lockTimeout: TimeInterval = 10,
                            setAsideHandler: (@Sendable (_ file: URL, _ movedTo: URL) -> Void)? = nil) {
        self.init(fileURL: fileURL, lockTimeout: lockTimeout, setAsideHandler: setAsideHandler,
                  recognizes: MSALCacheCodec.isTokenCacheDocument)
    }

    /// A storage whose file holds data recognized by `recognizes` (an encrypted cache, a signal file) rather than
    /// a JSON cache document: a symbolic link is followed only to a file it recognizes.
    package convenience init(fileURL: URL, lockTimeout: TimeInterval = 10, recognizes: @escaping @Sendable (Data) -> Bool) {
        self.init(fileURL: fileURL, lockTimeout: lockTimeout, setAsideHandler: nil, recognizes: recognizes)
    }

    private init(fileURL: URL, lockTimeout: TimeInterval, setAsideHandler: (@Sendable (URL, URL) -> Void)?,
                 recognizes: @escaping @Sendable (Data) -> Bool) {
        self.fileURL = fileURL
        self.lockTimeout = lockTimeout
        self.setAsideHandler = setAsideHandler
        self.path = fileURL.path
        self.lockPath = fileURL.path + ".lockfile"
        self.cachePath = CacheFilePath(path: fileURL.path, recognizes: recognizes)
    }

    /// The default cache file: `$XDG_DATA_HOME/msal-swift/msal_token_cache.json`, or
    /// `~/.local/share/msal-swift/msal_token_cache.json` when `XDG_DATA_HOME` is unset or not absolute.
    ///
    /// - Parameter environment: the environment variables to read (the process's by default).
    public static func defaultFileURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = (home as NSString).appendingPathComponent(".local/share")
        }
        return URL(fileURLWithPath: base, isDirectory: true)
            .appendingPathComponent("msal-swift", isDirectory: true)
            .appendingPathComponent("msal_token_cache.json", isDirectory: false)
    }

    // MARK: MSALTokenCacheStorage

    /// The file's inode, size and modification time (one `stat`); nil when the file does not exist.
    public func currentVersion() throws -> MSALTokenCacheStorageVersion? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw Self.failure("read the status of the token cache file", errno)
        }
        return Self.version(info)
    }

    /// The file's contents and the version they were read at; nil when the file does not exist.
    ///
    /// - Throws: when the path is a symbolic link to anything but a token cache, or not a regular file.
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        warnOnceIfExposed()
        let file: String
        switch try cachePath.target() {
        case .absent: return nil
        case .regular: file = path
        case .link(let final, _): file = final
        }
        let fd = try cachePath.openForReading(file)
        defer { close(fd) }
        let stored = try Self.readAll(fd)
        if file != path, !MSALCacheCodec.isBlank(stored.data), !cachePath.recognizes(stored.data) {
            throw cachePath.notACache(file)
        }
        return stored
    }

    /// The largest cache file read: far more than any cache holds (a thousand accounts take a few megabytes), and
    /// a file larger than this (another program's, or a damaged one) is refused before any of it is read.
    public static let maximumFileSize = 256 << 20

    /// Everything `fd` holds, read into one malloc'd buffer that the Data then owns (no zero-filling, no copy).
    private static func readAll(_ fd: Int32) throws -> (data: Data, version: MSALTokenCacheStorageVersion) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.failure("read the status of the token cache file", errno) }
        guard Int64(info.st_size) <= Int64(maximumFileSize) else { throw tooLarge() }
        var capacity = max(Int(info.st_size), 0) + 1
        guard var buffer = malloc(capacity) else { throw Self.failure("allocate memory for the token cache file", ENOMEM) }
        var filled = 0
        while true {
            if filled == capacity {
                capacity = max(capacity * 2, 4096)
                guard let grown = realloc(buffer, capacity) else {
                    free(buffer)
                    throw Self.failure("allocate memory for the token cache file", ENOMEM)
                }
                buffer = grown
            }
            let n = posixRead(fd, buffer + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR { continue }
                free(buffer)
                throw Self.failure("read the token cache file", errno)
            }
            if n == 0 { break }
            filled += n
            if filled > maximumFileSize {
                free(buffer)
                throw tooLarge()
            }
        }
        return (Data(bytesNoCopy: buffer, count: filled, deallocator: .free), Self.version(info))
    }

    /// Writes `data` to a temporary file (created exclusively, mode 0600 or the replaced file's narrower mode) in
    /// the same directory, flushes it and renames it over the cache file. Creates the directory (mode 0700) if
    /// needed. When the cache file is a symbolic link to a token cache, the file it names is replaced and the link
    /// is kept.
    ///
    /// - Throws: when the path is a symbolic link to anything but a token cache (checked again here, under the
    ///   lock), or not a regular file; nothing is written then.
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        warnOnceIfExposed()
        let target: String
        var mode: mode_t = 0o600
        switch try cachePath.target() {
        case .absent:
            target = path
        case .regular(let info):
            target = path
            mode &= info.st_mode
        case .link(let final, let info):
            let fd = try cachePath.openForReading(final)
            let current = try { defer { close(fd) }; return try Self.readAll(fd) }()
            guard cachePath.recognizes(current.data) else { throw cachePath.notACache(final) }
            target = final
            mode &= info.st_mode
        }
        do {
            try PrivateFiles.replace(target, with: data, mode: UInt32(mode))
        } catch let error as PrivateFiles.Failure {
            throw Self.failure(error.action, error.code)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw Self.failure("read the status of the token cache file", errno) }
        return Self.version(info)
    }

    /// Renames the cache file to `<file>.corrupt-<epoch ms>` if it is still at `version`, then calls
    /// ``setAsideHandler``. Only a regular file at the configured path is renamed: when the path is a symbolic
    /// link, nothing is moved (its target is never renamed) and nil is returned.
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? {
        guard case .regular(let info) = try cachePath.target(), Self.version(info) == version else { return nil }
        var destination = path + ".corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))"
        var attempt = 1
        var existing = stat()
        while lstat(destination, &existing) == 0 {
            attempt += 1
            destination = path + ".corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))-\(attempt)"
        }
        guard rename(path, destination) == 0 else { throw Self.failure("move the unreadable token cache file aside", errno) }
        setAsideHandler?(fileURL, URL(fileURLWithPath: destination))
        return destination
    }

    /// Runs `body` holding the cache file's cross-process lock (msal-extensions' `<file>.lockfile` protocol
    /// plus a kernel lock), waiting up to ``lockTimeout``. Not reentrant: do not call it again from `body`.
    public func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T {
        let directory = fileURL.deletingLastPathComponent().path
        try Self.makeDirectory(directory)
        return try CacheFileLock(lockPath: lockPath, directory: directory, timeout: lockTimeout).withLock(body)
    }

    /// Logs the exposure warnings of the path once per storage.
    private func warnOnceIfExposed() {
        guard !warned.get() else { return }
        warned.withLock { $0 = true }
        for warning in cachePath.exposureWarnings() { MSALLog().warning("\(warning)") }
    }

    // MARK: Helpers

    private static func version(_ info: stat) -> MSALTokenCacheStorageVersion {
        let modified = Int64(info.modificationTime.tv_sec) * 1_000_000_000 + Int64(info.modificationTime.tv_nsec)
        return MSALTokenCacheStorageVersion(identity: UInt64(info.st_ino), size: Int64(info.st_size), modificationTime: modified)
    }

    /// Creates `directory` and missing parents, each new one with mode 0700 (``PrivateFiles``).
    static func makeDirectory(_ directory: String) throws {
        do {
            try PrivateFiles.makeDirectory(directory)
        } catch let error as PrivateFiles.Failure {
            throw failure(error.action, error.code)
        }
    }

    /// The error for a cache file larger than ``maximumFileSize``.
    static func tooLarge() -> MSALErrorInfo {
        MSALErrorInfo.internal(.internalErrorUnexpected,
                               "The token cache file is larger than \(maximumFileSize >> 20) MiB, more than a token cache holds; it was not read.",
                               underlyingError: POSIXError(.EFBIG))
    }

    static func failure(_ action: String, _ code: Int32) -> MSALErrorInfo {
        MSALErrorInfo.internal(
            .internalErrorUnexpected, "Could not \(action): \(String(cString: strerror(code))) (errno \(code)).",
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }
}

@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    Foundation.read(fd, buffer, count)
}
