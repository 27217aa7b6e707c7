import Crypto
import Foundation
import MSALTestSupport
import Logging
import MSALCore
@testable import MSALSecureStorage

enum SecureFixtures {
    /// A fresh directory under the system's temporary directory.
    static func temporaryDirectory() -> URL {
        let url = ScratchDirectory.path("msal-secure-tests")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A cache document with a refresh token secret that must never show in logs or errors.
    static let refreshSecret = "RT-secret-\(UUID().uuidString)"
    static var document: Data {
        Data("""
        {"RefreshToken":{"u.t-login.microsoftonline.com-refreshtoken-client--":{"secret":"\(refreshSecret)",\
        "credential_type":"RefreshToken","home_account_id":"u.t","environment":"login.microsoftonline.com",\
        "client_id":"client"}}}
        """.utf8)
    }
}

/// A key store in memory, which a test can empty (a lost key) or break (an unusable store).
final class MemoryKeyStore: MSALTokenCacheKeyStore, @unchecked Sendable {
    let key = LockedBox<SymmetricKey?>(nil)
    let broken = LockedBox<Bool>(false)
    let source: MSALEncryptedCacheHeader.KeySource

    init(source: MSALEncryptedCacheHeader.KeySource = .kernelKeyring) { self.source = source }

    var keySource: MSALEncryptedCacheHeader.KeySource { source }
    var location: String { "test key store" }
    func checkAvailable() throws {
        if broken.get() { throw MSALTokenCacheProtectionError.keyStoreUnavailable("keyctl search failed: Operation not permitted (errno 1)") }
    }
    func readKey() throws -> SymmetricKey? {
        try checkAvailable()
        return key.get()
    }
    func storeKey(_ newKey: SymmetricKey) throws {
        try checkAvailable()
        key.withLock { $0 = newKey }
    }
}

/// A Secret Service that fails every request with `message`, as a locked keyring or an absent service does.
struct FailingSecretService: SecretServiceBackend {
    let message: String
    func store(schema: String, attributes: [String: String], label: String, collection: String?, secret: String) throws {
        throw MSALTokenCacheProtectionError.secretServiceFailed(message)
    }
    func lookup(schema: String, attributes: [String: String]) throws -> String? {
        throw MSALTokenCacheProtectionError.secretServiceFailed(message)
    }
    func clear(schema: String, attributes: [String: String]) throws -> Bool {
        throw MSALTokenCacheProtectionError.secretServiceFailed(message)
    }
}

/// A Secret Service in memory.
final class MemorySecretService: SecretServiceBackend, @unchecked Sendable {
    let items = LockedBox<[String: String]>([:])
    private func key(_ schema: String, _ attributes: [String: String]) -> String {
        schema + "|" + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
    func store(schema: String, attributes: [String: String], label: String, collection: String?, secret: String) throws {
        items.withLock { $0[key(schema, attributes)] = secret }
    }
    func lookup(schema: String, attributes: [String: String]) throws -> String? {
        items.get()[key(schema, attributes)]
    }
    func clear(schema: String, attributes: [String: String]) throws -> Bool {
        items.withLock { $0.removeValue(forKey: key(schema, attributes)) != nil }
    }
}

extension SecureFixtures {
    /// The chain's configuration with every file in `directory` and no session bus.
    static func configuration(_ directory: URL, environment: [String: String] = [:]) -> MSALSecureTokenCacheConfig {
        var configuration = MSALSecureTokenCacheConfig(environment: environment.merging(["HOME": directory.path]) { a, _ in a })
        configuration.encryptedFileURL = directory.appendingPathComponent("cache.bin")
        configuration.plaintextFileURL = directory.appendingPathComponent("cache.json")
        configuration.secretServiceSignalFileURL = directory.appendingPathComponent("cache.signal")
        return configuration
    }

    /// Backends whose Secret Service, kernel keyring and key file are the given ones.
    static func backends(secretService: (any SecretServiceBackend)? = nil, kernel: (any MSALTokenCacheKeyStore)?,
                         keyFile: (any MSALTokenCacheKeyStore)? = nil,
                         probe: @escaping @Sendable (String, TimeInterval) -> String? = { _, _ in nil }) -> ProtectionBackends {
        ProtectionBackends(
            secretService: { configuration, item in
                guard let secretService else {
                    throw MSALTokenCacheProtectionError.secretServiceFailed("libsecret-1.so.0 could not be loaded (test)")
                }
                return MSALSecretServiceTokenCacheStorage(signalFileURL: configuration.secretServiceSignalFileURL,
                                                          configuration: item, lockTimeout: 5, backend: secretService)
            },
            kernelKeyring: { _ in kernel },
            keyFile: { configuration in keyFile ?? MSALKeyFileKeyStore(cacheFileURL: configuration.encryptedFileURL) },
            secretServiceProbe: probe)
    }
}
