package import Foundation

/// Writing the package's files (the token cache files, the active-account file, the emulator's CA certificate and
/// challenge keys) without ever following a planted link or exposing content:
///
/// - directories are created with mode 0700 (missing parents too); existing ones are left as they are;
/// - a file is written to a temporary file created exclusively (`O_EXCL | O_NOFOLLOW`, an unpredictable name, the
///   final mode from the start) in the destination directory, flushed, and renamed over the destination, which
///   replaces a link there instead of following it;
/// - a new file is created exclusively (``createNew(_:at:mode:)``), so nothing that exists is ever opened.
package enum PrivateFiles {
    /// A failed system call: what was being done, and its `errno`.
    package struct Failure: Error, CustomStringConvertible {
        /// What was being done, as in "create /path".
        package let action: String
        /// The `errno` of the failed call.
        package let code: Int32

        package var description: String {
            "Could not \(action): \(String(cString: strerror(code))) (errno \(code))."
        }
    }

    /// Creates `directory` and its missing parents, each new one with mode 0700.
    package static func makeDirectory(_ directory: String) throws {
        if mkdir(directory, 0o700) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else { throw failure("create the directory \(directory)") }
        let parent = (directory as NSString).deletingLastPathComponent
        guard parent != directory, !parent.isEmpty else { throw failure("create the directory \(directory)") }
        try makeDirectory(parent)
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure("create the directory \(directory)") }
    }

    /// Replaces `path` with `data` atomically (temporary file in the same directory, then `rename`), with `mode`.
    package static func replace(_ path: String, with data: Data, mode: UInt32 = 0o600) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try makeDirectory(directory.isEmpty ? "." : directory)
        let temporary = (directory.isEmpty ? "." : directory) + "/." + (path as NSString).lastPathComponent
            + ".tmp-" + UUID().uuidString
        try createNew(data, at: temporary, mode: mode)
        guard rename(temporary, path) == 0 else {
            let error = failure("replace \(path)")
            unlink(temporary)
            throw error
        }
    }

    /// Creates the new file `path` holding `data`, with `mode` from the start; fails if anything exists there.
    package static func createNew(_ data: Data, at path: String, mode: UInt32 = 0o600) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw failure("create \(path)") }
        var ok = fchmod(fd, mode_t(mode)) == 0
        if ok {
            ok = data.withUnsafeBytes { raw -> Bool in
                var offset = 0
                while offset < raw.count {
                    let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += n
                }
                return true
            }
        }
        if ok { ok = fsync(fd) == 0 }
        let error = ok ? nil : failure("write \(path)")
        close(fd)
        if let error {
            unlink(path)
            throw error
        }
    }

    private static func failure(_ action: String) -> Failure {
        Failure(action: action, code: errno)
    }
}
