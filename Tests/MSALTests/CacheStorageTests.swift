import Foundation
import MSALTestSupport
import Logging
import Testing
import MSAL
@testable import MSALCore
@testable import MSALFileStorage
#if canImport(Glibc)
import Glibc
#endif

/// Collects log messages, for checking warnings: the recorder of the HTTP trace tests.

@Suite("Token cache file storage")
struct CacheFileStorageTests {
    let directory = CacheFixtures.temporaryDirectory().appendingPathComponent("nested/cache", isDirectory: true)
    var fileURL: URL { directory.appendingPathComponent("msal_token_cache.json") }

    private func mode(_ path: String) -> Int {
        (FileFacts.permissions(path) ?? 0) & 0o777
    }

    private func saveSignIn(_ store: TokenCacheStore, home: String = CacheFixtures.home) throws {
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse(home: home)) }
    }

    @Test func writesPrivateFileAtomically() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let store = TokenCacheStore(storage: storage, logger: RecordingLogHandler.logger().0)
        try saveSignIn(store)
        #expect(mode(fileURL.path) == 0o600)
        #expect(mode(directory.path) == 0o700)
        let firstVersion = try #require(try storage.currentVersion())
        try saveSignIn(store, home: "second.account")
        let secondVersion = try #require(try storage.currentVersion())
        // A rename replaces the file: a new inode, and no temporary file left behind.
        #expect(firstVersion.identity != secondVersion.identity)
        // The lock file (msal-extensions' protocol) is deleted on release.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["msal_token_cache.json"])
        let document = try TokenCacheDocument.parse(Data(contentsOf: fileURL))
        #expect(document.accounts(environments: nil).count == 2)
    }

    @Test func failedWriteLeavesTheOldFileIntact() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let store = TokenCacheStore(storage: storage, logger: RecordingLogHandler.logger().0)
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
        let (logger, log) = RecordingLogHandler.logger()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: logger)
        #expect(try store.currentDocument().accounts(environments: nil).isEmpty)
        try saveSignIn(store)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        let kept = try Data(contentsOf: directory.appendingPathComponent(try #require(aside.first)))
        #expect(kept == Data(content.utf8))
        #expect(log.all.contains { $0.hasPrefix("warning") && $0.contains("moved aside") })
        #expect(try TokenCacheDocument.parse(Data(contentsOf: fileURL)).accounts(environments: nil).count == 1)
    }

    @Test func entriesWithWrongFieldTypesAreKeptWhenRewriting() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let bad = #"{"RefreshToken": {"bad-rt": {"secret": 42, "home_account_id": ["x"]}, "bad-2": 7}, "Other": []}"#
        try Data(bad.utf8).write(to: fileURL)
        let (logger, log) = RecordingLogHandler.logger()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: logger)
        try saveSignIn(store)
        let object = try #require(CacheFixtures.object(Data(contentsOf: fileURL)))
        let original = try #require(CacheFixtures.object(Data(bad.utf8)))
        #expect(object["RefreshToken"]?.objectValue?["bad-rt"] == original["RefreshToken"]?.objectValue?["bad-rt"])
        #expect(object["RefreshToken"]?.objectValue?["bad-2"] == .number(7))
        #expect(object["RefreshToken"]?.objectValue?.count == 3)
        #expect(object["Other"] == .array([]))
        #expect(log.all.contains { $0.contains("could not be read") })
    }

    @Test func rereadsOnlyWhenAnotherWriterChangedTheFile() throws {
        let storage = MSALFileTokenCacheStorage(fileURL: fileURL)
        let store = TokenCacheStore(storage: storage, logger: RecordingLogHandler.logger().0)
        try saveSignIn(store)
        let first = try store.currentDocument()
        #expect(try store.currentDocument() === first)

        // Another process replaces the file (same size, as a rename does).
        let other = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: RecordingLogHandler.logger().0)
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

@Suite("Token cache fields of other SDKs")
struct CacheFidelityTests {
    let directory = CacheFixtures.temporaryDirectory()
    var fileURL: URL { directory.appendingPathComponent("msal_token_cache.json") }

    /// Numbers MSAL does not own (in an unknown section and as an unknown field of an entry) are written back
    /// exactly as another SDK wrote them: integers beyond 2^53, -0.0, exponents, trailing zeros.
    @Test func numbersOfOtherSDKsSurviveARewriteByteForByte() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let original = """
        {"Account": {"h.t-login.microsoftonline.com-t": {"home_account_id": "h.t", "environment": "login.microsoftonline.com",
          "realm": "t", "local_account_id": "h", "username": "bob@contoso.example", "authority_type": "MSSTS",
          "x_big": 9007199254740993}},
         "OtherSDK": {"big": 9007199254740993, "negzero": -0.0, "exp": 1E+3, "float": 1.0,
          "huge": 123456789012345678901234567890, "list": [-0, 2.50]}}
        """
        try Data(original.utf8).write(to: fileURL)
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: RecordingLogHandler.logger().0)
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) }
        let text = try String(contentsOf: fileURL, encoding: .utf8)
        for member in ["\"x_big\": 9007199254740993", "\"big\": 9007199254740993", "\"negzero\": -0.0", "\"exp\": 1E+3",
                       "\"float\": 1.0", "\"huge\": 123456789012345678901234567890", "-0,", "2.50"] {
            #expect(text.contains(member), "\(member) changed")
        }
        #expect(try TokenCacheDocument.parse(Data(text.utf8)).accounts(environments: nil).count == 2)
    }

    /// A cache holding invalid UTF-8 is not JSON (RFC 8259 §8.1): it is set aside unchanged, byte for byte, and
    /// never rewritten with U+FFFD in place of the bytes.
    @Test func invalidUTF8IsSetAsideUnchangedNeverRewritten() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var bytes = Array(#"{"OtherSDK": {"name": "caf"#.utf8)
        bytes += [0xE9]  // Latin-1 é: not UTF-8
        bytes += Array(#""}}"#.utf8)
        try Data(bytes).write(to: fileURL)
        let (logger, log) = RecordingLogHandler.logger()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: fileURL), logger: logger)
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) }
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: directory.appendingPathComponent(try #require(aside.first))) == Data(bytes))
        let rewritten = try String(contentsOf: fileURL, encoding: .utf8)
        #expect(!rewritten.contains("\\ufffd") && !rewritten.contains("\u{FFFD}") && !rewritten.contains("OtherSDK"))
        #expect(log.all.contains { $0.contains("invalid UTF-8") })
    }
}

// Sharing the file with MSAL for Python (msal-extensions' lock protocol) is tested in CacheSharingTests, the lock
// itself in CacheFileLockTests.
