import Crypto
public import Foundation
import Logging
public import MSALCore
import MSALFileStorage

/// The Secret Service item a token cache is kept in: a schema name and attributes, as msal-extensions'
/// `LibsecretPersistence` (MSAL for Python) names it, so that an application can share one item with a Python
/// application.
public struct MSALSecretServiceConfig: Sendable, Equatable {
    /// The schema name; nil: the SHA-256 (hexadecimal) of the signal file's path, which is what msal-extensions
    /// uses when given no schema name (`build_encrypted_persistence(location)`), so that both libraries pointed at
    /// one location share the item.
    public var schemaName: String?
    /// The item's attributes (string values); msal-extensions' default is none.
    public var attributes: [String: String]
    /// The item's label, shown by keyring viewers (not used to find it).
    public var label: String
    /// The collection to store in; nil: the default collection (the login keyring).
    public var collection: String?

    /// An item configuration; the defaults match msal-extensions' default item for the same signal file.
    public init(schemaName: String? = nil, attributes: [String: String] = [:], label: String = "MSAL token cache",
                collection: String? = nil) {
        self.schemaName = schemaName
        self.attributes = attributes
        self.label = label
        self.collection = collection
    }
}

/// A token cache kept as a secret in the Secret Service (GNOME Keyring, KWallet) through libsecret, loaded at run
/// time (`libsecret-1.so.0`); the cache document is the secret.
///
/// As with msal-extensions' `LibsecretPersistence`, a *signal file* on disk tells processes the cache changed:
/// each write replaces it (empty, mode 0600), so ``currentVersion()`` is one `stat`; the cross-process lock is the
/// signal file's `<file>.lockfile` (``MSALFileTokenCacheStorage``'s lock, the one msal-extensions takes).
///
/// A secret MSAL cannot parse is set aside under the schema name `<schema>.set-aside-<epoch ms>` in the keyring
/// (never written to disk), then removed from the cache's item.
public final class MSALSecretServiceTokenCacheStorage: MSALTokenCacheStorage {
    /// The signal file (its `stat` is the cache's version).
    public let signalFileURL: URL
    /// The item's schema name (resolved: never nil).
    public let schemaName: String
    /// The item's configuration.
    public let configuration: MSALSecretServiceConfig

    private let backend: any SecretServiceBackend
    let signal: MSALFileTokenCacheStorage

    /// A storage in the Secret Service whose signal file is `signalFileURL`.
    ///
    /// - Throws: ``MSALErrorInfo`` (underlying ``MSALTokenCacheProtectionError/secretServiceFailed(_:)``) when
    ///   libsecret cannot be loaded (or on platforms other than Linux). It does not contact the service: see
    ///   ``checkAvailable()``.
    public convenience init(signalFileURL: URL, configuration: MSALSecretServiceConfig = MSALSecretServiceConfig(),
                            lockTimeout: TimeInterval = 10) throws {
        self.init(signalFileURL: signalFileURL, configuration: configuration, lockTimeout: lockTimeout,
                  backend: try libSecretBackend())
    }

    init(signalFileURL: URL, configuration: MSALSecretServiceConfig, lockTimeout: TimeInterval,
         backend: any SecretServiceBackend) {
        self.signalFileURL = signalFileURL
        self.configuration = configuration
        self.schemaName = configuration.schemaName
            ?? SHA256.hash(data: Data(signalFileURL.path.utf8)).map { String(format: "%02x", $0) }.joined()
        self.backend = backend
        // The signal file is empty: through a symbolic link, only an empty file is replaced.
        self.signal = MSALFileTokenCacheStorage(fileURL: signalFileURL, lockTimeout: lockTimeout,
                                                recognizes: { $0.isEmpty })
    }

    /// Stores, reads back and removes a probe item (schema `org.msal-swift.probe`), as msal-extensions'
    /// `trial_run` does: throws when the service is unreachable, the keyring is locked or the store fails.
    public func checkAvailable() throws {
        let schema = "org.msal-swift.probe"
        let attributes = ["process": "\(ProcessInfo.processInfo.processIdentifier)"]
        let value = UUID().uuidString
        do {
            try backend.store(schema: schema, attributes: attributes, label: "MSAL probe",
                              collection: configuration.collection, secret: value)
            let found = try backend.lookup(schema: schema, attributes: attributes)
            try backend.clear(schema: schema, attributes: attributes)
            guard found == value else {
                throw MSALTokenCacheProtectionError.secretServiceFailed("a stored probe item could not be read back")
            }
        } catch let error as MSALTokenCacheProtectionError {
            throw error.errorInfo(file: nil)
        }
    }

    /// The signal file's version (one `stat`); nil when there is none.
    public func currentVersion() throws -> MSALTokenCacheStorageVersion? {
        try signal.currentVersion()
    }

    /// The secret and the signal file's version read before it (an empty document when there is no secret).
    public func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? {
        let version = try signal.currentVersion()
        guard let secret = try checked({ try backend.lookup(schema: schemaName, attributes: configuration.attributes) }) else {
            return version.map { (Data("{}".utf8), $0) }
        }
        // A secret without a signal file (written by a process that did not make one): make it now.
        let stamped = try version ?? signal.write(Data())
        return (Data(secret.utf8), stamped)
    }

    /// Stores `data` as the secret, then replaces the signal file. Called under the lock.
    public func write(_ data: Data) throws -> MSALTokenCacheStorageVersion {
        guard !data.contains(0) else { throw MSALTokenCacheProtectionError.unsupportedSecret.errorInfo(file: nil) }
        try checked {
            try backend.store(schema: schemaName, attributes: configuration.attributes, label: configuration.label,
                              collection: configuration.collection, secret: String(decoding: data, as: UTF8.self))
        }
        return try signal.write(Data())
    }

    /// Moves the secret to the schema `<schema>.set-aside-<epoch ms>` if the signal file is still at `version`.
    public func setAside(version: MSALTokenCacheStorageVersion) throws -> String? {
        guard try signal.currentVersion() == version else { return nil }
        guard let secret = try checked({ try backend.lookup(schema: schemaName, attributes: configuration.attributes) }) else {
            return nil
        }
        let aside = "\(schemaName).set-aside-\(Int64(Date().timeIntervalSince1970 * 1000))"
        try checked {
            try backend.store(schema: aside, attributes: configuration.attributes,
                              label: configuration.label + " (unreadable, set aside)",
                              collection: configuration.collection, secret: secret)
            try backend.clear(schema: schemaName, attributes: configuration.attributes)
        }
        _ = try signal.write(Data())
        return "the Secret Service item with schema \(aside)"
    }

    /// Runs `body` holding the signal file's cross-process lock (msal-extensions' `<file>.lockfile`).
    public func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T {
        try signal.withExclusiveAccess(body)
    }

    private func checked<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MSALTokenCacheProtectionError {
            throw error.errorInfo(file: nil)
        }
    }
}
