import Foundation
import Logging
import Testing
@testable import MSAL
#if canImport(Glibc)
import Glibc
#endif

/// Collects log messages, for checking warnings.
final class CacheTestLogHandler: LogHandler, @unchecked Sendable {
    let messages = LockedBox<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { messages.withLock { $0.append("\(event.level): \(event.message)") } }

    static func logger() -> (Logger, CacheTestLogHandler) {
        let handler = CacheTestLogHandler()
        return (Logger(label: "msal.cache.tests", factory: { _ in handler }), handler)
    }
}

@Suite("Token cache file storage")
struct CacheFileStorageTests {
    let directory = CacheFixtures.temporaryDirectory().appendingPathComponent("nested/cache", isDirectory: true)
    var fileURL: URL { directory.appendingPathComponent("msal_token_cache.json") }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = stat(path, &info)
        return info.st_mode & 0o777
    }

    private func saveSignIn(_ store: TokenCacheStore, home: String = CacheFixtures.home) throws {
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse(home: home)) }
    }

    @Test func writesPrivateFileAtomically() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let store = TokenCacheStore(storage: storage, logger: CacheTestLogHandler.logger().0)
        try saveSignIn(store)
        #expect(mode(fileURL.path) == 0o600)
        #expect(mode(directory.path) == 0o700)
        let firstVersion = try #require(try storage.currentVersion())
        try saveSignIn(store, home: "second.account")
        let secondVersion = try #require(try storage.currentVersion())
        // A rename replaces the file: a new inode, and no temporary file left behind.
        #expect(firstVersion.identity != secondVersion.identity)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["msal_token_cache.json", "msal_token_cache.json.lockfile"])
        let document = try TokenCacheDocument.parse(Data(contentsOf: fileURL))
        #expect(document.accounts(environments: nil).count == 2)
    }

    @Test func failedWriteLeavesTheOldFileIntact() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let store = TokenCacheStore(storage: storage, logger: CacheTestLogHandler.logger().0)
        try saveSignIn(store)
        let before = try Data(contentsOf: fileURL)
        chmod(directory.path, 0o500)
        defer { chmod(directory.path, 0o700) }
        guard getuid() != 0 else { return }  // root ignores directory permissions
        #expect(throws: MSALErrorInfo.self) { try saveSignIn(store, home: "another.account") }
        #expect(try Data(contentsOf: fileURL) == before)
        // The failed change is not kept in memory either.
        chmod(directory.path, 0o700)
        #expect(try store.currentDocument().accounts(environments: nil).count == 1)
    }

    @Test(arguments: ["garbage \u{0}\u{1} not json", "[{\"AccessToken\": {}}]", "{\"AccessToken\": {\"k\": ",
                      "{\"AccessToken\": [], \"Account\": {}}"])
    func unreadableFileIsMovedAsideNeverOverwritten(_ content: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(content.utf8).write(to: fileURL)
        let (logger, log) = CacheTestLogHandler.logger()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: logger)
        #expect(try store.currentDocument().accounts(environments: nil).isEmpty)
        try saveSignIn(store)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        let kept = try Data(contentsOf: directory.appendingPathComponent(try #require(aside.first)))
        #expect(kept == Data(content.utf8))
        #expect(log.messages.get().contains { $0.hasPrefix("warning") && $0.contains("moved aside") })
        #expect(try TokenCacheDocument.parse(Data(contentsOf: fileURL)).accounts(environments: nil).count == 1)
    }

    @Test func entriesWithWrongFieldTypesAreKeptWhenRewriting() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let bad = #"{"RefreshToken": {"bad-rt": {"secret": 42, "home_account_id": ["x"]}, "bad-2": 7}, "Other": []}"#
        try Data(bad.utf8).write(to: fileURL)
        let (logger, log) = CacheTestLogHandler.logger()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: logger)
        try saveSignIn(store)
        let object = try #require(CacheFixtures.object(Data(contentsOf: fileURL)))
        let original = try #require(CacheFixtures.object(Data(bad.utf8)))
        #expect(object["RefreshToken"]?.objectValue?["bad-rt"] == original["RefreshToken"]?.objectValue?["bad-rt"])
        #expect(object["RefreshToken"]?.objectValue?["bad-2"] == .number(7))
        #expect(object["RefreshToken"]?.objectValue?.count == 3)
        #expect(object["Other"] == .array([]))
        #expect(log.messages.get().contains { $0.contains("could not be read") })
    }

    @Test func rereadsOnlyWhenAnotherWriterChangedTheFile() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let store = TokenCacheStore(storage: storage, logger: CacheTestLogHandler.logger().0)
        try saveSignIn(store)
        let first = try store.currentDocument()
        #expect(try store.currentDocument() === first)

        // Another process replaces the file (same size, as a rename does).
        let other = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: CacheTestLogHandler.logger().0)
        try other.update { document in
            document.removeAccount(homeAccountId: CacheFixtures.home, environments: CacheFixtures.envs,
                                   clientId: CacheFixtures.clientId, familyId: "1")
        }
        let second = try store.currentDocument()
        #expect(second !== first)
        #expect(second.accounts(environments: nil).isEmpty)

        // A plain external rewrite with the same size is noticed too (new inode or modification time).
        let text = try Data(contentsOf: fileURL)
        try text.write(to: fileURL, options: .atomic)
        #expect(try store.currentDocument() !== second)
    }

    @Test func concurrentWritersUnderTheLockLoseNothing() async throws {
        let url = fileURL
        let writers = 6, perWriter = 8
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: url), logger: Logger(label: "w\(writer)"))
                    for index in 0..<perWriter {
                        _ = try? store.update { $0.saveTokenResponse(CacheFixtures.signInResponse(home: "uid-\(writer)-\(index).tid")) }
                    }
                }
            }
        }
        let document = try TokenCacheDocument.parse(Data(contentsOf: url))
        #expect(document.accounts(environments: nil).count == writers * perWriter)
        #expect(document.accessTokenCount == writers * perWriter)
    }

    @Test func defaultLocationFollowsXDG() {
        #expect(MSALFileTokenCacheStorage.defaultFileURL(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]).path
            == "/data/msal-swift/msal_token_cache.json")
        #expect(MSALFileTokenCacheStorage.defaultFileURL(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).path
            == "/home/u/.local/share/msal-swift/msal_token_cache.json")
        #expect(MSALFileTokenCacheStorage.defaultFileURL(environment: ["HOME": "/home/u"]).path
            == "/home/u/.local/share/msal-swift/msal_token_cache.json")
    }
}

@Suite("Token cache in-memory storage")
struct CacheMemoryStorageTests {
    @Test func currentDocumentIsFreeUntilSomethingChanges() throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let store = TokenCacheStore(storage: storage, logger: Logger(label: "t"))
        let empty = try store.currentDocument()
        #expect(try store.currentDocument() === empty)
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) }
        let afterWrite = try store.currentDocument()
        #expect(afterWrite === empty)  // our own write does not force a reload
        #expect(storage.data != nil)

        let other = TokenCacheStore(storage: storage, logger: Logger(label: "t2"))
        #expect(try other.currentDocument().accounts(environments: nil).count == 1)
        try other.update { $0.saveTokenResponse(CacheFixtures.signInResponse(home: "b.c")) }
        #expect(try store.currentDocument().accounts(environments: nil).count == 2)
    }

    @Test func noWriteWhenNothingChanged() throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let store = TokenCacheStore(storage: storage, logger: Logger(label: "t"))
        let count = try store.update { $0.accounts(environments: nil).count }
        #expect(count == 0)
        #expect(storage.data == nil)
    }

    @Test func throwingUpdateIsNotPersisted() throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let store = TokenCacheStore(storage: storage, logger: Logger(label: "t"))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.update { document in
                document.saveTokenResponse(CacheFixtures.signInResponse())
                throw Stop()
            }
        }
        #expect(storage.data == nil)
        #expect(try store.currentDocument().accounts(environments: nil).isEmpty)
    }

    @Test func corruptDataIsSetAside() throws {
        let storage = MSALInMemoryTokenCacheStorage(data: Data("[1,2]".utf8))
        let store = TokenCacheStore(storage: storage, logger: Logger(label: "t"))
        #expect(try store.currentDocument().accounts(environments: nil).isEmpty)
        #expect(storage.setAsideData == [Data("[1,2]".utf8)])
    }
}

@Suite("Token cache file lock across processes")
struct CacheCrossProcessTests {
    /// A Python process does locked read-modify-write cycles on the same file (as msal-extensions
    /// does) while this process updates it through `TokenCacheStore`: no write of either side is lost.
    @Test func pythonWriterAndSwiftWriterShareTheLock() async throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile)
        else { return }
        let directory = CacheFixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("msal_token_cache.json")
        let script = """
        import fcntl, json, os, sys
        path = sys.argv[1]
        for i in range(25):
            with open(path + ".lockfile", "a+") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    with open(path) as f: cache = json.load(f)
                except FileNotFoundError:
                    cache = {}
                cache.setdefault("PythonWrites", {})[str(i)] = {"n": i}
                with open(path + ".tmp", "w") as f: json.dump(cache, f, indent=4)
                os.replace(path + ".tmp", path)
                fcntl.flock(lock, fcntl.LOCK_UN)
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, url.path]
        try process.run()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: url), logger: Logger(label: "swift"))
        for index in 0..<25 {
            try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse(home: "uid-\(index).tid")) }
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let object = try #require(CacheFixtures.object(Data(contentsOf: url)))
        #expect(object["PythonWrites"]?.objectValue?.count == 25)
        #expect(object["Account"]?.objectValue?.count == 25)
    }
}
