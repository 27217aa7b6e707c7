import Foundation
import MSALCore

/// The cross-process lock of a token cache file, in the protocol of msal-extensions (the cache lock of MSAL for
/// Python apps and the Azure CLI), so that MSAL for Swift and MSAL for Python exclude each other on one file.
///
/// msal-extensions holds the lock by *creating* `<cache file>.lockfile` exclusively (`O_CREAT | O_EXCL`), writing
/// `"<pid> <argv[0]>"` into it, and *deleting* it on release; a waiter retries every 0.25 seconds (this lock too,
/// on average). Its portalocker variant also holds an exclusive `flock` on the file it created. This lock does all
/// of that, and also:
///
/// - holds an exclusive `flock` on the cache file's directory while it holds the lock file (a kernel lock, released
///   by the kernel if the process dies), so that MSAL for Swift processes exclude each other even if another
///   program removes the lock file;
/// - removes a lock file whose owner is gone: its process id is not alive (or is this process, which does not hold
///   it), or it is empty and older than the creation grace period. It is removed only while this process holds a
///   `flock` on it and only if the path still names that file, so two processes never both remove one.
struct CacheFileLock {
    /// msal-extensions' retry interval: the average pause between two attempts at the lock file (see
    /// `waitBeforeRetry`).
    static let retryInterval: TimeInterval = 0.25
    /// How long a waiter polls the lock file at MSAL for Python's pace before it watches for the release and tries at
    /// once (``LockReleaseWatch``): long enough to leave MSAL for Python's waiters (which give up after 5 s) most
    /// handovers, short enough that a process saving in a loop cannot keep the lock from this one.
    static let politeWait: TimeInterval = 1
    /// How long an empty lock file (being created, content not yet written) is given before it is taken as stale.
    static let creationGrace: TimeInterval = 5

    let lockPath: String
    let directory: String
    let timeout: TimeInterval

    /// Lock files this process holds now (its own process id in a lock file not listed here is stale).
    private static let held = LockedBox<Set<String>>([])

    /// Runs `body` holding the lock; waits up to ``timeout``.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        let started = Date()
        let deadline = started.addingTimeInterval(timeout)
        var waitedForDirectory = false
        let guardFD = try acquireDirectoryLock(deadline: deadline, waited: &waitedForDirectory)
        if waitedForDirectory, Date().timeIntervalSince(started) < Self.politeWait {
            // Another MSAL for Swift process just released the lock file. An MSAL for Python process waiting for it
            // polls every 0.25 s: pause a random part of that interval before the first attempt, so that the next
            // holder is whoever polls first, not always the next process of this library in line.
            usleep(useconds_t(Double.random(in: 0...Self.retryInterval) * 1_000_000))
        }
        defer {
            if guardFD >= 0 {
                flock(guardFD, LOCK_UN)
                close(guardFD)
            }
        }
        let lockFD = try acquireLockFile(deadline: deadline, started: started)
        defer { release(lockFD) }
        return try body()
    }

    // MARK: Kernel lock among MSAL for Swift processes

    /// An exclusive `flock` on the directory; -1 when the file system does not support it (the lock file still
    /// excludes).
    private func acquireDirectoryLock(deadline: Date, waited: inout Bool) throws -> Int32 {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        var attempt = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            waited = true
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                close(fd)
                return -1
            }
            guard Date() < deadline else {
                close(fd)
                throw timedOut(owner: nil)
            }
            waitBeforeRetry(&attempt, ramp: true)
        }
        return fd
    }

    // MARK: The msal-extensions lock file

    /// `started`: when this process began to wait for the lock (the directory lock's wait counts).
    private func acquireLockFile(deadline: Date, started: Date) throws -> Int32 {
        let content = Array("\(getpid()) \(CommandLine.arguments.first ?? "")".utf8)
        var attempt = 0
        var watch: LockReleaseWatch?
        while true {
            // Waited long enough at MSAL for Python's pace: from now on, try the moment the lock is released.
            if watch == nil, Date().timeIntervalSince(started) >= Self.politeWait {
                watch = LockReleaseWatch(directory: directory)
            }
            let fd = open(lockPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 {
                // Listed before the content names this process, so a thread of this process never takes it as stale.
                Self.held.withLock { _ = $0.insert(lockPath) }
                do {
                    try lockCreated(fd, content: content, deadline: deadline)
                } catch {
                    release(fd)
                    throw error
                }
                // While this process waited for the kernel lock on the file it created, the holder of that lock may
                // have deleted it (msal-extensions deletes the lock file on release): then it locks nothing.
                if stillNamed(fd) { return fd }
                close(fd)
                Self.held.withLock { _ = $0.remove(lockPath) }
                continue
            }
            let code = errno
            guard code == EEXIST || code == EINTR else {
                throw MSALFileTokenCacheStorage.failure("create the token cache lock file \(lockPath)", code)
            }
            if code == EINTR { continue }
            let check = inspectExistingLockFile()
            if check.removed { continue }
            guard Date() < deadline else { throw timedOut(owner: check.owner) }
            if let watch {
                watch.wait(min(Self.retryInterval, deadline.timeIntervalSinceNow))
            } else {
                waitBeforeRetry(&attempt, ramp: false)
            }
        }
    }

    /// Takes the `flock` on the lock file just created (as portalocker does) and writes the owner.
    private func lockCreated(_ fd: Int32, content: [UInt8], deadline: Date) throws {
        // Someone may hold it for a moment (another process checking whether it is stale): wait for them.
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { break }  // no flock here: the exclusive creation is the lock
            guard Date() < deadline else { throw timedOut(owner: nil) }
            usleep(10_000)
        }
        var offset = 0
        while offset < content.count {
            let n = content.withUnsafeBytes { write(fd, $0.baseAddress! + offset, content.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                break  // the content is informative only
            }
            offset += n
        }
    }

    /// Deletes the lock file if the path still names it, then closes it (releasing its `flock`).
    ///
    /// An msal-extensions process that could not create the lock file for 5 seconds opens the existing one with
    /// truncation and waits for its `flock`. If this process deleted the file then, that process would lock a file
    /// no longer at the path while the next process creates a new one, and both would write the cache at once. So a
    /// lock file found emptied (its owner line gone) is left at the path: the waiter takes it over with its `flock`
    /// and deletes it when done.
    private func release(_ fd: Int32) {
        var mine = stat()
        var current = stat()
        if fstat(fd, &mine) == 0, mine.st_size > 0, lstat(lockPath, &current) == 0,
           mine.st_dev == current.st_dev, mine.st_ino == current.st_ino {
            unlink(lockPath)
        }
        close(fd)
        Self.held.withLock { _ = $0.remove(lockPath) }
    }

    /// Whether the lock file path still names the file `fd` holds.
    private func stillNamed(_ fd: Int32) -> Bool {
        var mine = stat()
        var current = stat()
        return fstat(fd, &mine) == 0 && lstat(lockPath, &current) == 0
            && mine.st_dev == current.st_dev && mine.st_ino == current.st_ino
    }

    /// Looks at the lock file another process created: removes it if its owner is gone.
    private func inspectExistingLockFile() -> (removed: Bool, owner: Int32?) {
        let fd = open(lockPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return (errno == ENOENT, nil) }  // released meanwhile: try again at once
        defer { close(fd) }
        // A process holding a kernel lock on it is alive (portalocker, .NET, this library).
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return (false, nil) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        var info = stat()
        guard count >= 0, fstat(fd, &info) == 0 else { return (false, nil) }
        let owner = Self.ownerProcess(buffer.prefix(count))
        if !isStale(owner: owner, info: info) { return (false, owner) }
        // Still holding the flock on this file: remove it only if the path still names it.
        var current = stat()
        guard lstat(lockPath, &current) == 0, current.st_dev == info.st_dev, current.st_ino == info.st_ino else {
            return (false, owner)
        }
        guard unlink(lockPath) == 0 else { return (false, owner) }
        MSALLog().warning("Removed the token cache lock file \(lockPath) left behind by "
                          + (owner.map { "process \($0), which no longer runs." } ?? "a process that did not finish creating it."))
        return (true, owner)
    }

    private func isStale(owner: Int32?, info: stat) -> Bool {
        guard let owner else {
            let modified = TimeInterval(info.modificationTime.tv_sec)
            return Date().timeIntervalSince1970 - modified > Self.creationGrace
        }
        if owner == getpid() { return !Self.held.get().contains(lockPath) }
        if kill(owner, 0) == 0 { return false }
        return errno == ESRCH
    }

    /// The process id at the start of the lock file's content (`"<pid> <argv[0]>"`), nil when there is none.
    static func ownerProcess(_ content: ArraySlice<UInt8>) -> Int32? {
        var value: Int64 = 0
        var digits = 0
        for byte in content {
            guard byte >= 0x30, byte <= 0x39 else { break }
            value = value * 10 + Int64(byte - 0x30)
            digits += 1
            if digits > 10 { return nil }
        }
        guard digits > 0, value > 0, value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    /// The pause before the next attempt.
    ///
    /// - For the lock file (`ramp` false), which MSAL for Python processes poll every 0.25 s: the same interval on
    ///   average, spread by ±40 % so that this process's attempts do not lock into step just ahead of (or behind)
    ///   another process's fixed cadence. Whoever polls first after a release wins, so polling faster would starve
    ///   MSAL for Python (which gives up after 5 s), and a fixed phase would let one process win every time.
    /// - For the directory lock (`ramp` true), which only processes of this library take: from 2 ms, doubling up
    ///   to the same interval, so that a lock held for one cache write is taken soon after it is released.
    private func waitBeforeRetry(_ attempt: inout Int, ramp: Bool) {
        let pause = ramp ? min(Self.retryInterval, 0.002 * Double(1 << min(attempt, 8))) : Self.retryInterval
        attempt += 1
        usleep(useconds_t(pause * Double.random(in: 0.6...1.4) * 1_000_000))
    }

    private func timedOut(owner: Int32?) -> MSALErrorInfo {
        MSALErrorInfo.tokenCacheLockTimeout(
            "Timed out after \(ExternalNumber.clampedInteger(timeout)) seconds waiting for the token cache lock \(lockPath)"
                + (owner.map { ", held by process \($0)." } ?? "."))
    }
}
