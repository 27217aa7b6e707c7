import Crypto
import Foundation
import MSALTestSupport
import Logging
import Testing
@testable import MSALCore
@testable import MSALSecureStorage

/// The encrypted cache file: round trip, versions, the lock, and every way a file can fail to open, none of which
/// may crash, wipe or overwrite the user's accounts.
@Suite("Encrypted token cache file")
struct EncryptedFileStorageTests {
    let directory = SecureFixtures.temporaryDirectory()
    var fileURL: URL { directory.appendingPathComponent("cache.bin") }

    private func storage(_ keys: any MSALTokenCacheKeyStore, logger: RecordingLogHandler? = nil) -> MSALEncryptedFileTokenCacheStorage {
        let log = logger.map { handler in Logger(label: "t", factory: { _ in handler }) }
        return MSALEncryptedFileTokenCacheStorage(fileURL: fileURL, keyStore: keys, lockTimeout: 2, logger: log)
    }

    private func fileBytes() throws -> Data { try Data(contentsOf: fileURL) }

    private func protectionError(_ body: () throws -> Void) -> MSALTokenCacheProtectionError? {
        do {
            try body()
            return nil
        } catch let error as MSALErrorInfo {
            return error.underlyingError as? MSALTokenCacheProtectionError
        } catch {
            return nil
        }
    }

    @Test func roundTripsWithKeyFileAndChangesVersionOnWrite() throws {
        let keys = MSALKeyFileKeyStore(cacheFileURL: fileURL)
        let storage = storage(keys)
        #expect(try storage.read() == nil)
        #expect(try storage.currentVersion() == nil)
        let first = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        #expect(try storage.currentVersion() == first)
        let read = try #require(try storage.read())
        #expect(read.data == SecureFixtures.document)
        #expect(read.version == first)
        let second = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) }
        #expect(second != first)
        #expect(try storage.read()?.data == Data("{}".utf8))
        // Ciphertext on disk: the refresh token is not there; both files are 0600.
        let bytes = try fileBytes()
        #expect(bytes.prefix(6) == Data("MSALTC".utf8))
        #expect(bytes.range(of: Data(SecureFixtures.refreshSecret.utf8)) == nil)
        #expect(FileFacts.mode(fileURL.path) == 0o600)
        #expect(FileFacts.mode(keys.keyFileURL.path) == 0o600)
        #expect(FileFacts.size(keys.keyFileURL.path) == 32)
    }

    @Test func lockExcludesASecondHolder() throws {
        let storage = storage(MemoryKeyStore())
        let other = MSALEncryptedFileTokenCacheStorage(fileURL: fileURL, keyStore: MemoryKeyStore(), lockTimeout: 0.5)
        try storage.withExclusiveAccess {
            _ = #expect(throws: MSALErrorInfo.self) { try other.withExclusiveAccess {} }
        }
        try other.withExclusiveAccess {}
    }

    @Test func wrongKeyIsATypedErrorAndTheFileIsNeitherMovedNorOverwritten() throws {
        let keys = MemoryKeyStore()
        let storage = storage(keys)
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let before = try fileBytes()
        keys.key.withLock { $0 = SymmetricKey(size: .bits256) }
        #expect(protectionError { _ = try storage.read() } == .wrongKey)
        #expect(protectionError { _ = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) } } == .wrongKey)
        #expect(try fileBytes() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("corrupt") }.isEmpty)
    }

    @Test func tamperedTagTruncatedCiphertextAndBadHeaderAreTypedErrors() throws {
        let keys = MemoryKeyStore()
        let storage = storage(keys)
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let good = try fileBytes()

        var tampered = good
        tampered[tampered.count - 1] ^= 0x01
        try tampered.write(to: fileURL)
        #expect(protectionError { _ = try storage.read() } == .authenticationFailed)
        #expect(try fileBytes() == tampered)

        var flippedCiphertext = good
        flippedCiphertext[MSALEncryptedCacheHeader.size + 3] ^= 0x80
        try flippedCiphertext.write(to: fileURL)
        #expect(protectionError { _ = try storage.read() } == .authenticationFailed)

        // A header byte (the nonce) is authenticated too.
        var flippedNonce = good
        flippedNonce[20] ^= 0x01
        try flippedNonce.write(to: fileURL)
        #expect(protectionError { _ = try storage.read() } == .authenticationFailed)

        let truncated = good.prefix(good.count - 10)
        try truncated.write(to: fileURL)
        #expect(protectionError { _ = try storage.read() }
                == .lengthMismatch(expected: good.count, actual: good.count - 10))
        #expect(try fileBytes() == truncated)

        try Data("{\"plain\": \"json\"}".utf8).write(to: fileURL)
        #expect(protectionError { _ = try storage.read() } == .notAnEncryptedCache)

        var future = good
        future[6] = 9
        try future.write(to: fileURL)
        #expect(protectionError { _ = try storage.read() } == .unsupportedFormatVersion(9))

        // None of these was moved aside or replaced by a write.
        #expect(protectionError { _ = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) } }
                == .unsupportedFormatVersion(9))
        #expect(try fileBytes() == future)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("corrupt") }.isEmpty)
    }

    @Test func errorsNameTheFileButHoldNoSecret() throws {
        let keys = MemoryKeyStore()
        let storage = storage(keys)
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let key = try #require(keys.key.get())
        keys.key.withLock { $0 = SymmetricKey(size: .bits256) }
        do {
            _ = try storage.read()
            Issue.record("read did not fail")
        } catch let error as MSALErrorInfo {
            let text = "\(error) \(error.errorDescription)"
            #expect(text.contains(fileURL.path))
            #expect(!text.contains(SecureFixtures.refreshSecret))
            let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
            #expect(!text.contains(hex))
            #expect(!text.contains(key.withUnsafeBytes { Data($0).base64EncodedString() }))
        }
    }

    @Test func lostKeyReadsEmptyThenSetsAsideMakesANewKeyAndLogs() throws {
        let keys = MemoryKeyStore()
        let (logger, log) = RecordingLogHandler.logger()
        let storage = MSALEncryptedFileTokenCacheStorage(fileURL: fileURL, keyStore: keys, lockTimeout: 2, logger: logger)
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let old = try fileBytes()
        let oldKey = try #require(keys.key.get())
        keys.key.withLock { $0 = nil }  // a reboot emptied the kernel keyring

        let read = try #require(try storage.read())
        #expect(read.data == Data("{}".utf8))
        _ = try storage.read()
        #expect(log.all.filter { $0.contains("is gone") }.count == 1)
        #expect(try fileBytes() == old)  // reading moves nothing

        _ = try storage.withExclusiveAccess { try storage.write(Data("{\"new\":{}}".utf8)) }
        let newKey = try #require(keys.key.get())
        #expect(EncryptedCacheFile.keyId(newKey) != EncryptedCacheFile.keyId(oldKey))
        #expect(try storage.read()?.data == Data("{\"new\":{}}".utf8))
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: directory.appendingPathComponent(aside[0])) == old)
        #expect(log.text.contains("moved aside"))
        #expect(!log.text.contains(SecureFixtures.refreshSecret))
    }

    @Test func unusableKeyStoreIsATypedErrorNotALostKey() throws {
        let keys = MemoryKeyStore()
        let storage = storage(keys)
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let before = try fileBytes()
        keys.broken.withLock { $0 = true }
        guard case .keyStoreUnavailable = protectionError({ _ = try storage.read() }) else {
            Issue.record("expected keyStoreUnavailable")
            return
        }
        guard case .keyStoreUnavailable = protectionError({ _ = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) } }) else {
            Issue.record("expected keyStoreUnavailable on write")
            return
        }
        #expect(try fileBytes() == before)
    }

    @Test func engineKeepsAccountsWhenTheFileIsTampered() throws {
        // Through MSAL's cache store: a tampered file fails the read, and an update does not overwrite it.
        let keys = MemoryKeyStore()
        let storage = storage(keys)
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        var tampered = try fileBytes()
        tampered[tampered.count - 2] ^= 0x10
        try tampered.write(to: fileURL)
        let store = TokenCacheStore(storage: storage, logger: RecordingLogHandler.logger().0)
        #expect(throws: MSALErrorInfo.self) { _ = try store.currentDocument() }
        #expect(throws: MSALErrorInfo.self) { try store.update { _ in } }
        #expect(try fileBytes() == tampered)
    }
}

/// File facts for the tests.
enum FileFacts {
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int).map { $0 & 0o777 }
    }

    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}

/// The file format as the documentation describes it, written by an independent implementation (the fuzz seed
/// `sealed-cache.bin` was made with Python's `cryptography` AES-GCM from the table in MSALEncryptedCacheHeader).
@Suite("Encrypted token cache format")
struct EncryptedCacheFormatTests {
    @Test func independentlyWrittenFileOpens() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/encrypted-cache/sealed-cache.bin")
        let file = try Data(contentsOf: seed)
        let header = try MSALEncryptedCacheHeader.parse(file)
        #expect(header.keySource == .keyFile)
        let key = SymmetricKey(data: [UInt8](repeating: 0x42, count: 32))
        let document = try EncryptedCacheFile.open(file, header: header, key: key)
        #expect(String(decoding: document, as: UTF8.self).hasPrefix("{\"AccessToken\":{}"))
    }
}
