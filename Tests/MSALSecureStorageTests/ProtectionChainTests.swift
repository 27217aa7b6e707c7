import Crypto
import Foundation
import MSALTestSupport
import Logging
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import MSALCore
@testable import MSALSecureStorage

/// The chain picks the best tier available and logs each step once, with why.
@Suite("Token cache protection chain")
struct ProtectionChainTests {
    let directory = SecureFixtures.temporaryDirectory()
    let bus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"]

    private func chain(environment: [String: String] = [:], secretService: (any SecretServiceBackend)? = nil,
                       kernel: (any MSALTokenCacheKeyStore)? = MemoryKeyStore(),
                       keyFile: (any MSALTokenCacheKeyStore)? = nil,
                       configure: (inout MSALSecureTokenCacheConfig) -> Void = { _ in })
        -> (MSALSecureTokenCacheStorage, RecordingLogHandler) {
        var configuration = SecureFixtures.configuration(directory, environment: environment)
        configure(&configuration)
        let (logger, log) = RecordingLogHandler.logger()
        let storage = MSALSecureTokenCacheStorage(
            configuration: configuration, logger: logger,
            backends: SecureFixtures.backends(secretService: secretService, kernel: kernel, keyFile: keyFile))
        return (storage, log)
    }

    @Test func secretServiceIsChosenWhenABusAndAnUnlockedKeyringAreThere() throws {
        let service = MemorySecretService()
        let (storage, log) = chain(environment: bus, secretService: service)
        #expect(storage.protection == .secretService)
        #expect(storage.steps.map(\.protection) == [.secretService])
        #expect(log.all.count == 1 && log.text.contains("Secret Service: used"))
        // The probe item was removed again.
        #expect(service.items.get().isEmpty)
    }

    @Test func withoutABusTheKeyFileIsChosenAndASignInSurvivesAReboot() throws {
        let (storage, log) = chain(secretService: MemorySecretService())
        #expect(storage.protection == .keyFile)
        #expect(storage.steps.map(\.isUsed) == [false, true])
        #expect(storage.steps[0].reason.contains("DBUS_SESSION_BUS_ADDRESS"))
        #expect(log.all.count == 2)
        #expect(storage.storage is MSALEncryptedFileTokenCacheStorage)
        #expect(storage.protection.lifetime.contains("across reboots"))
    }

    @Test func theKernelKeyringComesFirstWhenAskedFor() throws {
        let (byApplication, _) = chain { $0.prefersKernelKeyring = true }
        #expect(byApplication.protection == .kernelKeyring)
        #expect(byApplication.steps.map(\.protection) == [.secretService, .kernelKeyring])
        #expect(byApplication.protection.lifetime.contains("until the machine restarts"))
        let (byEnvironment, _) = chain(environment: [MSALSecureTokenCacheConfig.keyStoreVariable: "kernel-keyring"])
        #expect(byEnvironment.protection == .kernelKeyring)
    }

    @Test func aCacheKeyedFromTheKernelKeyringMovesToTheKeyFileWhileItsKeyIsThere() throws {
        let kernel = MemoryKeyStore()
        let first = chain(kernel: kernel) { $0.prefersKernelKeyring = true }.0
        _ = try first.withExclusiveAccess { try first.write(SecureFixtures.document) }
        let (storage, log) = chain(kernel: kernel)
        #expect(storage.protection == .keyFile)
        #expect(try storage.read()?.data == SecureFixtures.document)
        let header = try MSALEncryptedCacheHeader.parse(Data(contentsOf: directory.appendingPathComponent("cache.bin")))
        #expect(header.keySource == .keyFile)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains("corrupt") })
        #expect(log.text.contains("now uses the key file"))
        // With the kernel's key gone (a reboot), the file is not taken: it is read as empty, as any lost key.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("cache.bin"))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("cache.bin.key"))
        let again = chain(kernel: kernel) { $0.prefersKernelKeyring = true }.0
        _ = try again.withExclusiveAccess { try again.write(SecureFixtures.document) }
        let rebooted = MemoryKeyStore()
        let (after, _) = chain(kernel: rebooted)
        #expect(after.protection == .keyFile)
        #expect(try after.read()?.data == Data("{}".utf8))
    }

    @Test func lockedKeyringFallsThroughWithItsReasonLogged() throws {
        let locked = FailingSecretService(message: "Cannot create an item in a locked collection")
        let (storage, log) = chain(environment: bus, secretService: locked)
        #expect(storage.protection == .keyFile)
        #expect(storage.steps[0].reason.contains("locked collection"))
        #expect(log.text.contains("Secret Service: not used"))
    }

    @Test func absentSecretServiceOrLibsecretFallsThrough() throws {
        let absent = FailingSecretService(message: "The name org.freedesktop.secrets was not provided by any .service files")
        #expect(chain(environment: bus, secretService: absent).0.protection == .keyFile)
        let (noLibrary, _) = chain(environment: bus, secretService: nil)
        #expect(noLibrary.protection == .keyFile)
        #expect(noLibrary.steps[0].reason.contains("libsecret-1.so.0"))
    }

    @Test func withoutAKeyFileTheKernelKeyringIsChosen() throws {
        let broken = MemoryKeyStore(source: .keyFile)
        broken.broken.withLock { $0 = true }
        let (storage, log) = chain(keyFile: broken)
        #expect(storage.protection == .kernelKeyring)
        #expect(storage.steps.map(\.protection) == [.secretService, .keyFile, .kernelKeyring])
        #expect(storage.steps[1].reason.contains("Operation not permitted"))
        #expect(log.all.count == 3)
        let (noKernel, _) = chain(kernel: nil)
        #expect(noKernel.protection == .keyFile)
    }

    @Test func plaintextOnlyWhenAllowedElseMemoryOnly() throws {
        let broken = MemoryKeyStore()
        broken.broken.withLock { $0 = true }
        let brokenFile = MemoryKeyStore(source: .keyFile)
        brokenFile.broken.withLock { $0 = true }

        let (refused, refusedLog) = chain(kernel: broken, keyFile: brokenFile)
        #expect(refused.protection == .memoryOnly)
        #expect(refused.steps.last?.isUsed == true)
        #expect(refusedLog.all.last?.hasPrefix("error:") == true)
        #expect(refused.steps[3].reason.contains("MSAL_CACHE_ALLOW_PLAINTEXT"))

        let (byEnvironment, environmentLog) = chain(environment: ["MSAL_CACHE_ALLOW_PLAINTEXT": "1"], kernel: broken, keyFile: brokenFile)
        #expect(byEnvironment.protection == .plaintext)
        #expect(environmentLog.all.last?.hasPrefix("warning:") == true)
        _ = try byEnvironment.withExclusiveAccess { try byEnvironment.write(SecureFixtures.document) }
        #expect(try Data(contentsOf: directory.appendingPathComponent("cache.json")) == SecureFixtures.document)

        let (byApplication, _) = chain(kernel: broken, keyFile: brokenFile) { $0.allowsPlaintext = true }
        #expect(byApplication.protection == .plaintext)
    }

    @Test func tiersTurnedOffAreSkipped() throws {
        let (storage, _) = chain(environment: bus, secretService: MemorySecretService()) {
            $0.secretService = nil
            $0.usesKeyFile = false
        }
        #expect(storage.protection == .kernelKeyring)
        #expect(storage.steps.prefix(2).allSatisfy { $0.reason == "turned off by the application" })
    }

    @Test func cacheWrittenWithAKeyFileStaysWithIt() throws {
        let keyFileChain = chain(kernel: nil).0
        _ = try keyFileChain.withExclusiveAccess { try keyFileChain.write(SecureFixtures.document) }
        let (storage, _) = chain { $0.prefersKernelKeyring = true }
        #expect(storage.protection == .keyFile)
        #expect(storage.steps[1].reason.contains("written with a key file"))
        #expect(try storage.read()?.data == SecureFixtures.document)
    }

    @Test func plaintextCacheIsLeftAloneUnlessMigrationIsOn() throws {
        let plaintext = directory.appendingPathComponent("cache.json")
        try SecureFixtures.document.write(to: plaintext)

        let (untouched, log) = chain()
        #expect(try untouched.read() == nil)
        #expect(log.text.contains("not read"))
        _ = try untouched.withExclusiveAccess { try untouched.write(Data("{}".utf8)) }
        #expect(FileManager.default.fileExists(atPath: plaintext.path))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("cache.bin"))

        let kernel = MemoryKeyStore()
        let (migrating, migrationLog) = chain(kernel: kernel) { $0.migratesPlaintextCache = true }
        let read = try #require(try migrating.read())
        #expect(read.data == SecureFixtures.document)
        #expect(FileManager.default.fileExists(atPath: plaintext.path))  // not before the first write
        _ = try migrating.withExclusiveAccess { try migrating.write(read.data) }
        #expect(!FileManager.default.fileExists(atPath: plaintext.path))
        #expect(try migrating.read()?.data == SecureFixtures.document)
        #expect(migrationLog.text.contains("Migrated the token cache"))
        #expect(!migrationLog.text.contains(SecureFixtures.refreshSecret))
    }

    @Test func migrationThroughTheApplicationCacheKeepsTheAccount() throws {
        let plaintext = directory.appendingPathComponent("cache.json")
        try SecureFixtures.document.write(to: plaintext)
        let (migrating, _) = chain { $0.migratesPlaintextCache = true }
        let store = TokenCacheStore(storage: migrating, logger: RecordingLogHandler.logger().0)
        #expect(try store.currentDocument().serialize().count > 2)
        try store.update { $0.removeAccount(homeAccountId: "u.t", environments: ["login.microsoftonline.com"], clientId: "client", familyId: nil) }
        #expect(!FileManager.default.fileExists(atPath: plaintext.path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("cache.bin").path))
    }
}

extension ProtectionChainTests {
    @Test func refusedKeyFileOfAnExistingCacheIsReportedNotTakenForLost() throws {
        let first = chain(kernel: nil).0
        _ = try first.withExclusiveAccess { try first.write(SecureFixtures.document) }
        let keyFile = directory.appendingPathComponent("cache.bin.key")
        #expect(chmod(keyFile.path, 0o644) == 0)
        let before = try Data(contentsOf: directory.appendingPathComponent("cache.bin"))

        let (storage, log) = chain()
        #expect(storage.protection == .memoryOnly)
        #expect(storage.steps[1].reason.contains("mode 644"))
        #expect(storage.steps[2].reason.contains("written with a key file"))
        #expect(log.text.contains("chmod 600"))
        #expect(try Data(contentsOf: directory.appendingPathComponent("cache.bin")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains("corrupt") })
    }
}
