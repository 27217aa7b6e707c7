public import Foundation
public import MSALCore

extension MSALFileTokenCacheStorage: MSALTokenCacheRefreshLocking {
    /// Runs `body` holding the refresh lock named `key` in `<cache file>.refresh-lock`, so that processes sharing
    /// the cache send one token request for the same token (``MSALTokenCacheRefreshLocking``). The lock file exists
    /// only while a request holds it: its last holder removes it.
    ///
    /// On Linux each key locks its own byte of the file (an open-file-description lock, `F_OFD_SETLK`), so
    /// different tokens are refreshed in parallel; elsewhere, or where the file system refuses such locks, the
    /// whole file is locked with `flock`. Both are kernel locks: released when the process ends, however it ends.
    /// The wait polls every 20 to 40 ms without blocking a thread, and stops when the task is cancelled.
    public func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                             _ body: @Sendable () async throws -> T) async throws -> T {
        let directory = fileURL.deletingLastPathComponent().path
        try Self.makeDirectory(directory)
        let waits = refreshLockWaits
        let lock = try await RefreshLockFile.acquire(path: fileURL.path + ".refresh-lock", key: key, timeout: timeout,
                                                     waiting: { started in waits.withLock { $0 += started ? 1 : -1 } })
        defer { lock.release() }
        return try await body()
    }
}

/// One held refresh lock: an open descriptor of the lock file carrying the lock; closing it releases the lock.
struct RefreshLockFile: Sendable {
    let descriptor: Int32
    let path: String

    /// Linux's `F_OFD_SETLK` (not exported to Swift): a byte-range lock owned by the open file description.
    static let openFileDescriptionSetLock: Int32 = 37

    /// Takes the lock for `key`, polling while another process holds it; `waiting` is told when a wait starts
    /// (true) and when it ends (false).
    static func acquire(path: String, key: String, timeout: TimeInterval,
                        waiting: (Bool) -> Void = { _ in }) async throws -> RefreshLockFile {
        let deadline = Date().addingTimeInterval(timeout.isFinite ? min(max(timeout, 0), 86_400) : 86_400)
        var waited = false
        defer { if waited { waiting(false) } }
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw MSALFileTokenCacheStorage.failure("open the token refresh lock file \(path)", errno) }
            do {
                lock: while true {
                    switch tryLock(fd, offset: offset(for: key)) {
                    case .held:
                        // The last holder removes the file when it is done (``release()``): a lock taken on a file
                        // that is no longer at the path is no lock at all; open the path again.
                        guard stillNamed(fd, path) else { break lock }
                        return RefreshLockFile(descriptor: fd, path: path)
                    case .failed(let code):
                        throw MSALFileTokenCacheStorage.failure("lock the token refresh lock file \(path)", code)
                    case .busy:
                        if !waited {
                            waited = true
                            waiting(true)
                        }
                        guard Date() < deadline else {
                            throw MSALErrorInfo.tokenCacheLockTimeout(
                                "Timed out after \(ExternalNumber.clampedInteger(timeout)) seconds waiting for another "
                                    + "process's token request (\(path)).")
                        }
                        try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...40_000_000))
                    }
                }
                close(fd)
            } catch {
                close(fd)
                throw error
            }
        }
    }

    /// Releases the lock. The last holder removes the lock file, so that none is left beside the cache: only when no
    /// other process holds a byte of it (a lock on the whole file is granted), the path still names it and it is
    /// empty (the lock files are never written: a file someone else put there is left alone).
    func release() {
        if RefreshLockFile.tryLockWhole(descriptor), RefreshLockFile.stillNamed(descriptor, path) {
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_size == 0 { unlink(path) }
        }
        close(descriptor)
    }

    /// Whether `path` still names the file open as `fd` (same device and inode, not a link).
    static func stillNamed(_ fd: Int32, _ path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(fd, &opened) == 0, lstat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// A non-blocking lock of the whole file, granted only when no other holder has any byte of it (where
    /// open-file-description locks exist; under `flock` the holder already has the whole file).
    static func tryLockWhole(_ fd: Int32) -> Bool {
        #if os(Linux)
        var range = flock()
        range.l_type = Int16(F_WRLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = 0
        range.l_len = 0
        range.l_pid = 0
        while true {
            if fcntl(fd, openFileDescriptionSetLock, &range) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            return code == EINVAL || code == ENOLCK   // not supported: the lock held is a flock of the whole file
        }
        #else
        return true
        #endif
    }

    enum Attempt: Equatable {
        case held, busy
        case failed(Int32)
    }

    /// One non-blocking attempt: the key's byte where open-file-description locks exist, else the whole file.
    static func tryLock(_ fd: Int32, offset: Int64) -> Attempt {
        #if os(Linux)
        var range = flock()
        range.l_type = Int16(F_WRLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = off_t(offset)
        range.l_len = 1
        range.l_pid = 0
        while true {
            if fcntl(fd, openFileDescriptionSetLock, &range) == 0 { return .held }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EACCES { return .busy }
            if code == EINVAL || code == ENOLCK { break }  // not supported here: lock the whole file instead
            return .failed(code)
        }
        #endif
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return .held }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK { return .busy }
            return .failed(code)
        }
    }

    /// The byte a key locks: a 64-bit FNV-1a hash of the key, within the positive file offsets. Two keys that share
    /// a byte only wait for each other; the key itself is never written anywhere.
    static func offset(for key: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(hash & 0x0000_7fff_ffff_ffff)
    }
}
