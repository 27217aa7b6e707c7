import Crypto
import Foundation
import Testing
@testable import MSALCore
@testable import MSALSecureStorage
#if canImport(Glibc)
import Glibc
import MSALTestSupport
#endif

/// The key stores: a key file refused unless it is the user's own private regular file; the kernel keyring.
@Suite("Token cache key stores")
struct KeyStoreTests {
    let directory = SecureFixtures.temporaryDirectory()
    var cacheURL: URL { directory.appendingPathComponent("cache.bin") }

    private func rejection(_ store: MSALKeyFileKeyStore) -> String? {
        do {
            _ = try store.readKey()
            return nil
        } catch MSALTokenCacheProtectionError.keyFileRejected(let reason) {
            return reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func keyFileIsCreatedPrivateAndReadBack() throws {
        let store = MSALKeyFileKeyStore(cacheFileURL: cacheURL)
        #expect(try store.readKey() == nil)
        try store.checkAvailable()
        let key = SymmetricKey(size: .bits256)
        try store.storeKey(key)
        #expect(try store.readKey() == key)
        #expect(FileFacts.mode(store.keyFileURL.path) == 0o600)
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache.bin.key"])
    }

    @Test func keyFileReadableByOthersIsRefused() throws {
        let store = MSALKeyFileKeyStore(cacheFileURL: cacheURL)
        try store.storeKey(SymmetricKey(size: .bits256))
        chmod(store.keyFileURL.path, 0o644)
        #expect(rejection(store)?.contains("mode 644") == true)
        #expect(throws: (any Error).self) { try store.checkAvailable() }
        chmod(store.keyFileURL.path, 0o640)
        #expect(rejection(store) != nil)
        chmod(store.keyFileURL.path, 0o600)
        #expect(rejection(store) == nil)
    }

    @Test func keyFileOfAnotherUserIsRefused() throws {
        try #require(geteuid() == 0, "changing a file's owner needs root")
        let store = MSALKeyFileKeyStore(cacheFileURL: cacheURL)
        try store.storeKey(SymmetricKey(size: .bits256))
        #expect(chown(store.keyFileURL.path, 12345, 12345) == 0)
        #expect(rejection(store)?.contains("belongs to user 12345") == true)
    }

    @Test func symbolicLinkDirectoryAndWrongSizeAreRefused() throws {
        let store = MSALKeyFileKeyStore(cacheFileURL: cacheURL)
        let elsewhere = directory.appendingPathComponent("elsewhere")
        try Data(repeating: 7, count: 32).write(to: elsewhere)
        chmod(elsewhere.path, 0o600)
        try FileManager.default.createSymbolicLink(atPath: store.keyFileURL.path, withDestinationPath: elsewhere.path)
        #expect(rejection(store)?.contains("symbolic link") == true)
        try FileManager.default.removeItem(at: store.keyFileURL)

        try FileManager.default.createDirectory(at: store.keyFileURL, withIntermediateDirectories: false)
        #expect(rejection(store) != nil)
        try FileManager.default.removeItem(at: store.keyFileURL)

        try Data(repeating: 1, count: 31).write(to: store.keyFileURL)
        chmod(store.keyFileURL.path, 0o600)
        #expect(rejection(store)?.contains("31 bytes") == true)
    }

    #if os(Linux)
    /// The kernel keyring, when this kernel and sandbox allow its system calls (MSAL_KERNEL_KEYRING_REQUIRED=1
    /// makes their absence a failure).
    @Test func kernelKeyringRoundTripsAKeyAndLosesIt() throws {
        let store = MSALKernelKeyringKeyStore(cacheFileURL: directory.appendingPathComponent("kernel-\(UUID().uuidString).bin"))
        do {
            try store.checkAvailable()
        } catch {
            let required = ProcessInfo.processInfo.environment["MSAL_KERNEL_KEYRING_REQUIRED"] == "1"
            try #require(!required, "the kernel keyring is required but unavailable: \(error)")
            return
        }
        defer { try? store.removeKey() }
        #expect(try store.readKey() == nil)
        let key = SymmetricKey(size: .bits256)
        try store.storeKey(key)
        #expect(try store.readKey() == key)
        let replacement = SymmetricKey(size: .bits256)
        try store.storeKey(replacement)
        #expect(try store.readKey() == replacement)
        try store.removeKey()
        #expect(try store.readKey() == nil)
    }

    @Test func kernelKeyringTierRoundTripsACacheAndSurvivesALostKey() throws {
        let file = directory.appendingPathComponent("kernel-cache.bin")
        let store = MSALKernelKeyringKeyStore(cacheFileURL: file)
        guard (try? store.checkAvailable()) != nil else { return }
        defer { try? store.removeKey() }
        let storage = MSALEncryptedFileTokenCacheStorage(fileURL: file, keyStore: store, lockTimeout: 2)
        let version = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        #expect(try storage.read()?.data == SecureFixtures.document)
        #expect(try storage.currentVersion() == version)
        // The key is gone (as after a reboot): empty, then set aside and a new key on the next write.
        try store.removeKey()
        #expect(try storage.read()?.data == Data("{}".utf8))
        _ = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) }
        #expect(try store.readKey() != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains { $0.contains(".corrupt-") })
    }
    #endif
}
