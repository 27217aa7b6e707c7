import Foundation
import MSALCore

/// What the configured token cache path names, and the one rule for which files the storage may change.
///
/// The storage changes (replaces, renames) only:
/// - a regular file at the configured path, or no file there (it creates one);
/// - through a symbolic link, a regular file that already holds a token cache (``CacheFilePath/recognizes``):
///   MSAL for Python's write-through behaviour for a link to another cache. The link must be this user's (or
///   root's) and the file this user's.
///
/// A link to anything else (another kind of file, a file that is not a cache, nothing at all) and any other kind
/// of file at the path (a directory, a device, a FIFO) is refused with an error that names the path; nothing is
/// touched or created. Files are opened with `O_NOFOLLOW`, so a link planted after the check is not followed.
struct CacheFilePath: Sendable {
    /// What the configured path names.
    enum Target {
        /// Nothing: the storage may create the file.
        case absent
        /// A regular file at the path itself.
        case regular(stat)
        /// A symbolic link (or a chain of them) to the regular file `final`.
        case link(final: String, info: stat)
    }

    /// The configured path.
    let path: String
    /// Whether data is a cache this storage may replace through a link (a JSON cache, or an encrypted one).
    let recognizes: @Sendable (Data) -> Bool

    /// Classifies the configured path; throws for anything the storage must not use.
    func target() throws -> Target {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return .absent }
            throw MSALFileTokenCacheStorage.failure("read the status of the token cache file \(path)", errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular(info)
        case S_IFLNK: break
        default: throw refused("is not a regular file")
        }
        // A link someone else planted is not followed (the kernel's protected_symlinks rule, which a link resolved
        // here would otherwise bypass): the link must be this user's or root's.
        guard info.st_uid == geteuid() || info.st_uid == 0 else { throw refused("is a symbolic link owned by another user") }
        var current = path
        for _ in 0..<32 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { throw MSALFileTokenCacheStorage.failure("read the symbolic link \(current)", errno) }
            let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : (current as NSString).deletingLastPathComponent + "/" + link
            var next = stat()
            if lstat(current, &next) != 0 {
                if errno == ENOENT { throw refused("is a symbolic link to \(current), which does not exist") }
                throw MSALFileTokenCacheStorage.failure("read the status of \(current)", errno)
            }
            switch next.st_mode & S_IFMT {
            case S_IFREG:
                // Tokens are never written into a file another user owns (and could read).
                guard next.st_uid == geteuid() else {
                    throw refused("is a symbolic link to \(current), which another user owns")
                }
                return .link(final: current, info: next)
            case S_IFLNK: continue
            default: throw refused("is a symbolic link to \(current), which is not a regular file")
            }
        }
        throw refused("is a chain of symbolic links too long to follow")
    }

    /// Opens a file this storage may read (never following a link planted since ``target()``).
    func openForReading(_ file: String) throws -> Int32 {
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw refused("changed into a symbolic link while it was read") }
            throw MSALFileTokenCacheStorage.failure("open the token cache file \(file)", errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw refused("is not a regular file")
        }
        return fd
    }

    /// The error for data behind a link that is not a token cache: the link's target is left as it is.
    func notACache(_ final: String) -> MSALErrorInfo {
        refused("is a symbolic link to \(final), which is not a token cache file")
    }

    func refused(_ reason: String) -> MSALErrorInfo {
        MSALErrorInfo.internal(
            .internalErrorUnexpected,
            "The token cache path \(path) \(reason). MSAL reads and changes only a token cache file there (or a "
                + "symbolic link to one); nothing was changed. Choose another cache path.")
    }

    /// Warnings for a cache others can change: a file writable by other users, or a directory writable by them
    /// without the sticky bit (anyone could replace the file).
    func exposureWarnings() -> [String] {
        var warnings: [String] = []
        let directory = (path as NSString).deletingLastPathComponent
        var info = stat()
        if lstat(directory.isEmpty ? "." : directory, &info) == 0, info.st_mode & S_IWOTH != 0, info.st_mode & S_ISVTX == 0 {
            warnings.append("The token cache directory \(directory) is writable by every user and has no sticky bit: "
                            + "anyone can replace the token cache file. Use a private directory.")
        }
        if stat(path, &info) == 0, info.st_mode & S_IWOTH != 0 {
            warnings.append("The token cache file \(path) is writable by every user. Use a private file (mode 0600).")
        }
        return warnings
    }
}
