import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Wakes a waiter for the token cache lock the moment a file of the cache directory is deleted, which is how
/// msal-extensions and this library release the lock (Linux's inotify; elsewhere nothing, and the waiter polls).
///
/// A process that saves in a loop (an MSAL for Python app writing its cache over and over) takes the lock again
/// within a fraction of a millisecond of releasing it: a waiter that only polls every 0.25 s can lose every
/// handover for minutes. After waiting a while (``CacheFileLock``), a waiter watches for the release instead and
/// tries at once, so that it gets its turn. Deletions that happen while it is not waiting stay queued, so none is
/// missed between an attempt and the wait.
final class LockReleaseWatch {
    #if os(Linux)
    private let descriptor: Int32

    /// A watch of `directory`, or nil where inotify cannot be used.
    init?(directory: String) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, directory, UInt32(IN_DELETE)) >= 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    /// Returns when a file of the directory was deleted (now or since the last wait), or after `timeout` seconds.
    func wait(_ timeout: TimeInterval) {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 60)) * 1000)
        while poll(&entry, 1, milliseconds) < 0 && errno == EINTR {}
        // Drain the queued events: the next wait is for the next deletion.
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    deinit { close(descriptor) }
    #else
    init?(directory: String) { return nil }
    func wait(_ timeout: TimeInterval) {}
    #endif
}
