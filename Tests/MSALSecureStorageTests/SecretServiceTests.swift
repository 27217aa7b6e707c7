import Foundation
import MSALTestSupport
import Logging
import Testing
@testable import MSALCore
@testable import MSALSecureStorage

/// Whether a real Secret Service is reachable: a session bus and an unlocked default collection. Without one the
/// tests are skipped, unless MSAL_SECRET_SERVICE_REQUIRED=1 (scripts/with-secret-service.sh starts one).
enum RealSecretService {
    static let required = ProcessInfo.processInfo.environment["MSAL_SECRET_SERVICE_REQUIRED"] == "1"

    static let availability: String? = {
        guard let bus = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else {
            return "no D-Bus session bus"
        }
        do {
            let probe = try MSALSecretServiceTokenCacheStorage(
                signalFileURL: SecureFixtures.temporaryDirectory().appendingPathComponent("probe.signal"))
            try probe.checkAvailable()
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// True when the tests should run; records a failure when they must but cannot.
    static func check() -> Bool {
        guard let reason = availability else { return true }
        if required { Issue.record("The Secret Service is required but unavailable: \(reason)") }
        return false
    }

    /// Runs a program and returns its standard output.
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let result = try ProcessRunner.runSynchronously(URL(fileURLWithPath: executable), arguments,
                                                        stdin: Data((input ?? "").utf8), timeout: 60)
        return (result.status, result.stdout)
    }
}

/// The Secret Service tier against a real gnome-keyring (through libsecret loaded at run time).
@Suite("Secret Service token cache")
struct SecretServiceTests {
    let directory = SecureFixtures.temporaryDirectory()
    var signalURL: URL { directory.appendingPathComponent("msal_cache.signal") }

    private func storage(_ configuration: MSALSecretServiceConfig = MSALSecretServiceConfig()) throws -> MSALSecretServiceTokenCacheStorage {
        try MSALSecretServiceTokenCacheStorage(signalFileURL: signalURL, configuration: configuration, lockTimeout: 2)
    }

    @Test func roundTripsVersionsAndLocks() throws {
        guard RealSecretService.check() else { return }
        let storage = try storage()
        defer { _ = try? LibSecret.shared.get().clear(schema: storage.schemaName, attributes: [:]) }
        #expect(try storage.read() == nil)
        let first = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        #expect(try storage.currentVersion() == first)
        #expect(try storage.read()?.data == SecureFixtures.document)
        let second = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) }
        #expect(second != first)
        #expect(try storage.read()?.data == Data("{}".utf8))
        // The signal file is empty and private; the lock file is msal-extensions' `<signal>.lockfile`.
        #expect(FileFacts.size(signalURL.path) == 0)
        #expect(FileFacts.mode(signalURL.path) == 0o600)
        let other = MSALSecretServiceTokenCacheStorage(signalFileURL: signalURL, configuration: MSALSecretServiceConfig(),
                                                       lockTimeout: 0.5, backend: try LibSecret.shared.get())
        try storage.withExclusiveAccess {
            #expect(FileManager.default.fileExists(atPath: signalURL.path + ".lockfile"))
            _ = #expect(throws: MSALErrorInfo.self) { try other.withExclusiveAccess {} }
        }
        // The default schema name is msal-extensions' default: the SHA-256 of the signal file's path.
        #expect(storage.schemaName.count == 64)
    }

    @Test func itemIsFoundBySchemaAndAttributesAsAnotherClientStoresIt() throws {
        guard RealSecretService.check() else { return }
        let configuration = MSALSecretServiceConfig(schemaName: "org.msal-swift.test.\(UUID().uuidString)",
                                                    attributes: ["app": "msal-swift-tests"])
        let storage = try storage(configuration)
        defer { _ = try? LibSecret.shared.get().clear(schema: configuration.schemaName!, attributes: configuration.attributes) }
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let lookup = try RealSecretService.run("/usr/bin/secret-tool",
                                               ["lookup", "xdg:schema", configuration.schemaName!, "app", "msal-swift-tests"])
        #expect(lookup.status == 0)
        #expect(lookup.output == String(decoding: SecureFixtures.document, as: UTF8.self))
        // Another client replaces the secret (and touches the signal file, as msal-extensions does).
        let stored = try RealSecretService.run("/usr/bin/secret-tool",
                                               ["store", "--label=other", "xdg:schema", configuration.schemaName!,
                                                "app", "msal-swift-tests"], input: "{\"AccessToken\":{}}")
        #expect(stored.status == 0)
        #expect(try storage.read()?.data == Data("{\"AccessToken\":{}}".utf8))
    }

    @Test func unreadableSecretIsSetAsideInTheKeyring() throws {
        guard RealSecretService.check() else { return }
        let storage = try storage()
        let library = try LibSecret.shared.get()
        defer { _ = try? library.clear(schema: storage.schemaName, attributes: [:]) }
        _ = try storage.withExclusiveAccess { try storage.write(Data("not json".utf8)) }
        let (logger, log) = RecordingLogHandler.logger()
        let store = TokenCacheStore(storage: storage, logger: logger)
        #expect(try store.currentDocument().serialize() == TokenCacheDocument().serialize())
        #expect(log.text.contains("set-aside"))
        let asideSchema = try #require(log.text.split(separator: " ").first { $0.contains(".set-aside-") })
            .trimmingCharacters(in: CharacterSet(charactersIn: ";,."))
        defer { _ = try? library.clear(schema: asideSchema, attributes: [:]) }
        #expect(try library.lookup(schema: asideSchema, attributes: [:]) == "not json")
        #expect(try library.lookup(schema: storage.schemaName, attributes: [:]) == nil)
    }

    @Test func chainChoosesTheSecretServiceAndLogsNoSecret() throws {
        guard RealSecretService.check() else { return }
        var configuration = SecureFixtures.configuration(directory, environment: ProcessInfo.processInfo.environment)
        configuration.secretServiceSignalFileURL = signalURL
        let (logger, log) = RecordingLogHandler.logger()
        let chain = MSALSecureTokenCacheStorage(configuration: configuration, logger: logger)
        #expect(chain.protection == .secretService)
        let storage = try #require(chain.storage as? MSALSecretServiceTokenCacheStorage)
        defer { _ = try? LibSecret.shared.get().clear(schema: storage.schemaName, attributes: [:]) }
        _ = try chain.withExclusiveAccess { try chain.write(SecureFixtures.document) }
        #expect(try chain.read()?.data == SecureFixtures.document)
        #expect(!log.text.contains(SecureFixtures.refreshSecret))
        #expect(log.text.contains("Secret Service: used"))
    }
}

/// A real gnome-keyring whose login collection is locked, with no display for a prompt
/// (`scripts/with-secret-service.sh --locked` sets MSAL_SECRET_SERVICE_LOCKED=1); skipped otherwise.
@Suite("Locked Secret Service")
struct LockedSecretServiceTests {
    let directory = SecureFixtures.temporaryDirectory()
    let locked = ProcessInfo.processInfo.environment["MSAL_SECRET_SERVICE_LOCKED"] == "1"

    @Test func chainFallsThroughWithTheReasonLogged() throws {
        guard locked else { return }
        let (logger, log) = RecordingLogHandler.logger()
        let configuration = SecureFixtures.configuration(directory, environment: ProcessInfo.processInfo.environment)
        defer { try? MSALKernelKeyringKeyStore(cacheFileURL: configuration.encryptedFileURL).removeKey() }
        let chain = MSALSecureTokenCacheStorage(configuration: configuration, logger: logger)
        #expect(chain.protection == .kernelKeyring || chain.protection == .keyFile)
        #expect(chain.steps[0].protection == .secretService && !chain.steps[0].isUsed)
        #expect(chain.steps[0].reason.contains("locked"))
        #expect(log.text.contains("Secret Service: not used"))
        _ = try chain.withExclusiveAccess { try chain.write(SecureFixtures.document) }
        #expect(try chain.read()?.data == SecureFixtures.document)
    }

    @Test func writeToALockedKeyringIsATypedError() throws {
        guard locked else { return }
        let storage = try MSALSecretServiceTokenCacheStorage(signalFileURL: directory.appendingPathComponent("locked.signal"))
        do {
            _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
            Issue.record("a locked keyring took the secret")
        } catch let error as MSALErrorInfo {
            guard case .secretServiceFailed(let reason) = error.underlyingError as? MSALTokenCacheProtectionError else {
                Issue.record("unexpected underlying error \(String(describing: error.underlyingError))")
                return
            }
            #expect(reason.contains("locked"))
            #expect(!error.errorDescription.contains(SecureFixtures.refreshSecret))
        }
        // Nothing was stamped: the signal file changes only after the secret was stored.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("locked.signal").path))
    }
}
