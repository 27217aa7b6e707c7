import Foundation
import Testing
@testable import MSALCore
@testable import MSALSecureStorage
import MSALTestSupport

/// Protected storages make token requests single-flight across processes through the refresh lock file beside
/// their own file.
@Suite("Refresh locks of protected storages")
struct RefreshLockingTests {
    @Test func theEncryptedFileLocksBesideItself() async throws {
        let directory = SecureFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fileURL = directory.appendingPathComponent("cache.bin")
        let first = MSALEncryptedFileTokenCacheStorage(fileURL: fileURL, keyStore: MemoryKeyStore(), lockTimeout: 2)
        let second = MSALEncryptedFileTokenCacheStorage(fileURL: fileURL, keyStore: MemoryKeyStore(), lockTimeout: 2)
        _ = try await first.withRefreshLock(key: "token", timeout: 1) {
            #expect(FileManager.default.fileExists(atPath: fileURL.path + ".refresh-lock"))
            await #expect(throws: MSALErrorInfo.self) {
                try await second.withRefreshLock(key: "token", timeout: 0.2) { }
            }
        }
        let after = try await second.withRefreshLock(key: "token", timeout: 1) { true }
        #expect(after)
        // Nothing is left beside the cache once no request holds the lock.
        #expect(!FileManager.default.fileExists(atPath: fileURL.path + ".refresh-lock"))
    }
}
