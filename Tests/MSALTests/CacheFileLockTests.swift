import Foundation
import MSALTestSupport
import Logging
import Testing
import MSAL
@testable import MSALCore
@testable import MSALFileStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache file lock speaks msal-extensions' protocol: `<file>.lockfile` created exclusively with
/// `"<pid> <argv[0]>"`, deleted on release; a lock file whose owner is gone is removed, one whose owner lives is
/// waited for.
@Suite("Token cache file lock protocol")
struct CacheFileLockTests {
    let directory = CacheFixtures.temporaryDirectory()
    var fileURL: URL { directory.appendingPathComponent("msal_token_cache.json") }
    var lockPath: String { fileURL.path + ".lockfile" }

    private func makeDirectory() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The id of a process that has exited.
    private func deadProcessId() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func lockFileHoldsTheOwnerWhileHeldAndIsDeletedOnRelease() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let content = try storage.withExclusiveAccess { try String(contentsOfFile: lockPath, encoding: .utf8) }
        #expect(content == "\(getpid()) \(CommandLine.arguments[0])")
        #expect(!FileManager.default.fileExists(atPath: lockPath))
        // Nothing else is left in the directory either.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func secondHolderInThisProcessWaitsForTheFirst() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 0.6)
        try storage.withExclusiveAccess {
            let other = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 0.6)
            #expect(throws: MSALErrorInfo.self) { try other.withExclusiveAccess {} }
        }
    }

    @Test func lockFileOfAProcessThatIsGoneIsRemoved() throws {
        try makeDirectory()
        let dead = try deadProcessId()
        try Data("\(dead) /usr/bin/az".utf8).write(to: URL(fileURLWithPath: lockPath))
        let start = Date()
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 5)
        let content = try storage.withExclusiveAccess { try String(contentsOfFile: lockPath, encoding: .utf8) }
        // Well under the 5 s lock timeout: the dead owner's lock file is not waited for (a loose bound, for busy machines).
        #expect(Date().timeIntervalSince(start) < 4)
        #expect(content.hasPrefix("\(getpid()) "))
        #expect(!FileManager.default.fileExists(atPath: lockPath))
    }

    @Test func lockFileOfThisProcessIdNotHeldHereIsStale() throws {
        // A lock file with this process's id that this process does not hold: left by an earlier process that had
        // the same id (a container restarted).
        try makeDirectory()
        try Data("\(getpid()) old-program".utf8).write(to: URL(fileURLWithPath: lockPath))
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 2)
        try storage.withExclusiveAccess {}
        #expect(!FileManager.default.fileExists(atPath: lockPath))
    }

    @Test func lockFileOfALiveProcessIsWaitedForAndKept() throws {
        try makeDirectory()
        let live = getppid()
        try Data("\(live) python".utf8).write(to: URL(fileURLWithPath: lockPath))
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 0.6)
        let start = Date()
        #expect(throws: MSALErrorInfo.self) { try storage.withExclusiveAccess {} }
        #expect(Date().timeIntervalSince(start) >= 0.5)
        #expect(try String(contentsOfFile: lockPath, encoding: .utf8) == "\(live) python")
    }

    @Test func lockFileUnderAKernelLockIsNotStale() throws {
        // portalocker (and .NET) hold a flock on the lock file: its holder is alive whatever the file says.
        try makeDirectory()
        let dead = try deadProcessId()
        try Data("\(dead) python".utf8).write(to: URL(fileURLWithPath: lockPath))
        let fd = open(lockPath, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 0.6)
        #expect(throws: MSALErrorInfo.self) { try storage.withExclusiveAccess {} }
        #expect(FileManager.default.fileExists(atPath: lockPath))
    }

    @Test func emptyLockFileIsGivenTimeToBeWrittenThenTakenAsStale() throws {
        try makeDirectory()
        _ = FileManager.default.createFile(atPath: lockPath, contents: Data())
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL, lockTimeout: 0.6)
        #expect(throws: MSALErrorInfo.self) { try storage.withExclusiveAccess {} }
        // Older than the creation grace: its creator died before writing its id.
        let old = Date().addingTimeInterval(-(CacheFileLock.creationGrace + 5))
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: lockPath)
        try storage.withExclusiveAccess {}
        #expect(!FileManager.default.fileExists(atPath: lockPath))
    }

    @Test func ownerProcessIsReadFromTheContent() {
        #expect(CacheFileLock.ownerProcess(ArraySlice("1234 /usr/bin/az".utf8)) == 1234)
        #expect(CacheFileLock.ownerProcess(ArraySlice("77".utf8)) == 77)
        #expect(CacheFileLock.ownerProcess(ArraySlice("".utf8)) == nil)
        #expect(CacheFileLock.ownerProcess(ArraySlice("0 x".utf8)) == nil)
        #expect(CacheFileLock.ownerProcess(ArraySlice("99999999999 x".utf8)) == nil)
        #expect(CacheFileLock.ownerProcess(ArraySlice("abc".utf8)) == nil)
    }
}

/// A cache file that is a symbolic link stays one: writes and set-asides go to the file it names.
@Suite("Token cache file behind a symbolic link")
struct CacheFileSymlinkTests {
    let directory = CacheFixtures.temporaryDirectory()

    private func isSymbolicLink(_ path: String) -> Bool {
        FileFacts.isSymbolicLink(path)
    }

    @Test func writesGoThroughTheLinkToItsTarget() throws {
        let targetDirectory = directory.appendingPathComponent("real")
        let linkDirectory = directory.appendingPathComponent("links")
        try FileManager.default.createDirectory(at: targetDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: linkDirectory, withIntermediateDirectories: true)
        let target = targetDirectory.appendingPathComponent("cache.json")
        let link = linkDirectory.appendingPathComponent("cache.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../real/cache.json")
        // A link to nothing names a place someone else chose: refused, nothing created there.
        let refused = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: link), logger: RecordingLogHandler.logger().0)
        #expect(throws: MSALErrorInfo.self) { try refused.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) } }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        // A link to a token cache (another SDK's, say) is written through.
        try Data("{}".utf8).write(to: target)
        chmod(target.path, 0o600)

        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: link), logger: RecordingLogHandler.logger().0)
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) }
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse(home: "second.account")) }

        #expect(isSymbolicLink(link.path))
        let document = try TokenCacheDocument.parse(Data(contentsOf: target))
        #expect(document.accounts(environments: nil).count == 2)
        #expect(FileFacts.permissions(target.path).map { $0 & 0o777 } == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: targetDirectory.path) == ["cache.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: linkDirectory.path) == ["cache.json"])
        // A fresh reader through the link sees it all.
        let reader = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: link), logger: RecordingLogHandler.logger().0)
        #expect(try reader.currentDocument().accounts(environments: nil).count == 2)
    }

    @Test func aLinkToAFileThatIsNotACacheIsRefusedAndNothingIsMoved() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let target = directory.appendingPathComponent("target.json")
        let link = directory.appendingPathComponent("link.json")
        try Data("not json".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let seen = LockedBox<[String]>([])
        let storage = MSALFileTokenCacheStorage(fileURL: link, setAsideHandler: { file, movedTo in
            seen.withLock { $0.append("\(file.path) -> \(movedTo.path)") }
        })
        let store = TokenCacheStore(storage: storage, logger: RecordingLogHandler.logger().0)
        #expect(throws: MSALErrorInfo.self) { try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) } }
        #expect(throws: MSALErrorInfo.self) { try store.currentDocument() }

        #expect(isSymbolicLink(link.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["link.json", "target.json"])
        #expect(try Data(contentsOf: target) == Data("not json".utf8))
        #expect(seen.get().isEmpty)
    }
}
