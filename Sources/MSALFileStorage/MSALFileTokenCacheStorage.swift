public import Foundation
public import MSALCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A token cache in a plain JSON file, shared safely between processes, in the format (and with the
/// locking protocol) of MSAL for Python with msal-extensions' `FilePersistence`.
///
/// - The file is readable and writable by its owner only (mode 0600); a missing directory is created
///   with mode 0700.
/// - Writes are atomic: the new document goes to a temporary file in the same directory, is flushed to
///   disk, and is renamed over the cache file. If the cache file is a symbolic link, the link is followed:
///   the file it names is replaced (the temporary file is made next to it), the link stays.
/// - ``withExclusiveAccess(_:)`` holds the lock of msal-extensions: `<file>.lockfile`, created exclusively,
///   holding `"<pid> <program>"`, deleted on release, retried every 0.25 seconds; plus a kernel lock (`flock`)
///   on it and on the cache directory. A lock file left behind by a process that no longer runs is removed.
///   Processes using MSAL for Swift, MSAL for Python or the Azure CLI on one file exclude each other.
/// - Changes by other processes are detected from the file's inode, size and modification time.
/// - A file MSAL cannot read is renamed to `<file>.corrupt-<epoch milliseconds>` by
///   ``setAside(version:)``, never overwritten, and ``setAsideHandler`` is told.
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

    /// A storage for the cache file at `fileURL` (by default ``defaultFileURL(environment:)``).
    ///
    /// - Parameters:
    ///   - fileURL: the cache file; its directory is created (mode 0700) on the first write if missing.
    ///   - lockTimeout: how long to wait for the cross-process lock before failing (default 10 seconds).
    ///   - setAsideHandler: called after an unreadable cache file was moved aside (see ``setAside(version:)``).
    public init(fileURL: URL = MSALFileTokenCacheStorage.defaultFileURL(), lockTimeout: TimeInterval = 10,
                setAsideHandler: (@Sendable (_ file: URL, _ movedTo: URL) -> Void)? = nil) {
        self.fileURL = fileURL
        self.lockTimeout = lockTimeout
        self.setAsideHandler = setAsideHandler
        self.path = fileURL.path
        self.lockPath = fileURL.path + ".lockfile"
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
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Self.failure("open the token cache file", errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.failure("read the status of the token cache file", errno) }
        // Read straight into one malloc'd buffer that the Data then owns: no zero-filling, no copy.
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
        }
        return (Data(bytesNoCopy: buffer, count: filled, deallocator: .free), Self.version(info))
    }

    /// Writes `data` to a temporary file (mode 0600) in the same directory, flushes it and renames it over
    /// the cache file. Creates the directory (mode 0700) if needed. When the cache file is a symbolic link,
    /// the file it names is replaced and the link is kept.
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        let target = try resolvedPath()
        let directory = (target as NSString).deletingLastPathComponent
        try Self.makeDirectory(directory)
        let temporary = directory + "/." + (target as NSString).lastPathComponent
            + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("create a temporary token cache file", errno) }
        var succeeded = false
        defer { if !succeeded { unlink(temporary) } }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw Self.failure("protect the token cache file", errno) }
            try data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = posixWrite(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw Self.failure("write the token cache file", errno)
                    }
                    offset += n
                }
            }
            guard fsync(fd) == 0 else { throw Self.failure("flush the token cache file", errno) }
        }
        guard rename(temporary, target) == 0 else { throw Self.failure("replace the token cache file", errno) }
        succeeded = true
        var info = stat()
        guard stat(target, &info) == 0 else { throw Self.failure("read the status of the token cache file", errno) }
        return Self.version(info)
    }

    /// Renames the cache file to `<file>.corrupt-<epoch ms>` if it is still at `version`, then calls
    /// ``setAsideHandler``. When the cache file is a symbolic link, the file it names is renamed (next to
    /// itself) and the link is kept.
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? {
        guard try currentVersion() == version else { return nil }
        let target = try resolvedPath()
        var destination = target + ".corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))"
        var attempt = 1
        while access(destination, F_OK) == 0 {
            attempt += 1
            destination = target + ".corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))-\(attempt)"
        }
        guard rename(target, destination) == 0 else { throw Self.failure("move the unreadable token cache file aside", errno) }
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

    /// The file that reads and writes reach: the cache file, or the file its symbolic links finally name
    /// (which may not exist yet).
    func resolvedPath() throws -> String {
        var current = path
        for _ in 0..<32 {
            var info = stat()
            if lstat(current, &info) != 0 {
                if errno == ENOENT { return current }
                throw Self.failure("read the status of the token cache file", errno)
            }
            guard info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { throw Self.failure("read the token cache file's symbolic link", errno) }
            let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : (current as NSString).deletingLastPathComponent + "/" + link
        }
        throw Self.failure("follow the token cache file's symbolic links", ELOOP)
    }

    // MARK: Helpers

    private static func version(_ info: stat) -> MSALTokenCacheStorageVersion {
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return MSALTokenCacheStorageVersion(identity: UInt64(info.st_ino), size: Int64(info.st_size), modificationTime: modified)
    }

    /// Creates `directory` and missing parents, each new one with mode 0700.
    static func makeDirectory(_ directory: String) throws {
        if mkdir(directory, 0o700) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else { throw failure("create the token cache directory", errno) }
        let parent = (directory as NSString).deletingLastPathComponent
        guard parent != directory, !parent.isEmpty else { throw failure("create the token cache directory", ENOENT) }
        try makeDirectory(parent)
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure("create the token cache directory", errno) }
    }

    static func failure(_ action: String, _ code: Int32) -> MSALErrorInfo {
        MSALErrorInfo.internal(
            .internalErrorUnexpected, "Could not \(action): \(String(cString: strerror(code))) (errno \(code)).",
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }
}

@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #elseif canImport(Musl)
    Musl.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #elseif canImport(Musl)
    Musl.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
