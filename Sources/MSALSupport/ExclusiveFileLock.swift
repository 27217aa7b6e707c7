package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock between processes that read, change and rewrite one small file (the tool's sign-in records): an
/// exclusive `flock` on a lock file beside it, held for the whole read-modify-write so that no process loses
/// another's update. The lock file is created with mode 0600 and never followed through a link; it stays in place
/// (it holds nothing), and the kernel releases the lock when the process ends, however it ends.
package enum ExclusiveFileLock {
    /// Why the lock could not be taken.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Runs `body` holding the lock of `path` (`<path>.lock`), polling for at most `timeout` seconds while another
    /// process holds it.
    package static func withLock<T>(of path: String, timeout: TimeInterval = 5, _ body: () throws -> T) throws -> T {
        let lockPath = path + ".lock"
        let directory = (lockPath as NSString).deletingLastPathComponent
        try PrivateFiles.makeDirectory(directory.isEmpty ? "." : directory)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            throw Failure(description: "Cannot open the lock file \(lockPath): \(String(cString: strerror(errno))).")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "The lock file \(lockPath) is not a regular file.")
        }
        let deadline = Date().addingTimeInterval(max(0, min(timeout, 3600)))
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw Failure(description: "Cannot lock \(lockPath): \(String(cString: strerror(errno))).")
            }
            guard Date() < deadline else {
                throw Failure(description: "Another process has held \(lockPath) for over \(Int(timeout)) s.")
            }
            usleep(10_000)
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
