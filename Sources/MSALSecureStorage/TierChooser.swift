import Foundation
import Logging
import MSALCore
import MSALDBus
import MSALFileStorage

/// Where the chain gets each tier's service; tests replace them (a locked keyring, a kernel without keyrings).
struct ProtectionBackends: Sendable {
    /// The Secret Service storage for the configuration (throws when libsecret cannot be loaded).
    var secretService: @Sendable (MSALSecureTokenCacheConfig, MSALSecretServiceConfig) throws -> MSALSecretServiceTokenCacheStorage
    /// The kernel keyring key store; nil on systems without one.
    var kernelKeyring: @Sendable (MSALSecureTokenCacheConfig) -> (any MSALTokenCacheKeyStore)?
    /// The key file key store.
    var keyFile: @Sendable (MSALSecureTokenCacheConfig) -> any MSALTokenCacheKeyStore
    /// Why the Secret Service on the bus at the address cannot be used within the timeout (seconds); nil when it
    /// answers.
    var secretServiceProbe: @Sendable (String, TimeInterval) -> String? = ProtectionBackends.probeSecretService

    /// This system's services.
    static let system = ProtectionBackends(
        secretService: { configuration, item in
            try MSALSecretServiceTokenCacheStorage(signalFileURL: configuration.secretServiceSignalFileURL,
                                                   configuration: item, lockTimeout: configuration.lockTimeout)
        },
        kernelKeyring: { configuration in
            #if os(Linux)
            MSALKernelKeyringKeyStore(cacheFileURL: configuration.encryptedFileURL,
                                      keyring: configuration.usesSessionKeyring ? .session : .user)
            #else
            nil
            #endif
        },
        keyFile: { configuration in MSALKeyFileKeyStore(cacheFileURL: configuration.encryptedFileURL) })

    /// The bounded probe before the Secret Service tier: the service's name has an owner on the session bus
    /// (`GetNameOwner`), or, when it would be started on demand, it answers a `Ping` within `timeout`.
    @Sendable static func probeSecretService(_ address: String, _ timeout: TimeInterval) -> String? {
        #if os(Linux)
        let dbus: LibDBus
        switch LibDBus.shared {
        case .success(let loaded): dbus = loaded
        case .failure(let failure): return failure.message
        }
        let connection: LibDBus.Connection
        do {
            connection = try dbus.connect(address: address)
        } catch {
            return "the session bus cannot be reached (\(error.name))"
        }
        defer { dbus.close(connection) }
        let milliseconds = Int32(max(0.05, min(timeout, 60)) * 1000)
        if (try? dbus.call(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                           interface: "org.freedesktop.DBus", method: "GetNameOwner", arguments: [secretsName],
                           timeout: milliseconds)) != nil {
            return nil
        }
        do {
            _ = try dbus.call(connection, destination: secretsName, path: "/org/freedesktop/secrets",
                              interface: "org.freedesktop.DBus.Peer", method: "Ping", arguments: [], timeout: milliseconds)
            return nil
        } catch let failure {
            if failure.name == "org.freedesktop.DBus.Error.ServiceUnknown" {
                return "no Secret Service on the session bus (nothing owns or starts \(secretsName))"
            }
            return "no Secret Service answered on the session bus within \(ExternalNumber.clampedInteger(timeout)) s "
                + "(\(failure.name)): a keyring started on demand did not come up"
        }
        #else
        return "used on Linux only"
        #endif
    }

    /// The Secret Service's name on the bus.
    static let secretsName = "org.freedesktop.secrets"
}

/// Goes down the protection tiers and records why each was or was not used.
struct TierChooser {
    let configuration: MSALSecureTokenCacheConfig
    let backends: ProtectionBackends
    let logger: Logger?
    private(set) var steps: [MSALTokenCacheProtectionStep] = []

    init(configuration: MSALSecureTokenCacheConfig, backends: ProtectionBackends, logger: Logger?) {
        self.configuration = configuration
        self.backends = backends
        self.logger = logger
    }

    mutating func choose() -> (MSALTokenCacheProtection, any MSALTokenCacheStorage) {
        if let storage = secretService() { return (.secretService, storage) }
        let existingSource = existingKeySource()
        let kernel = backends.kernelKeyring(configuration)
        let order: [MSALTokenCacheProtection] = configuration.kernelKeyringFirst ? [.kernelKeyring, .keyFile] : [.keyFile, .kernelKeyring]
        for tier in order {
            let store = tier == .keyFile ? backends.keyFile(configuration) : kernel
            let enabled = tier == .keyFile ? configuration.usesKeyFile : configuration.usesKernelKeyring
            guard let storage = encryptedFile(tier, store: store, enabled: enabled, existingSource: existingSource) else {
                continue
            }
            if tier == .keyFile, existingSource == .kernelKeyring, let kernel {
                migrate(from: kernel, to: storage)
            }
            return (tier, storage)
        }
        if configuration.plaintextAllowed {
            let who = configuration.allowsPlaintext ? "the application" : "\(MSALSecureTokenCacheConfig.allowPlaintextVariable)"
            skipOrUse(.plaintext, used: true, "allowed by \(who); the file \(configuration.plaintextFileURL.path) is not encrypted")
            return (.plaintext, MSALFileTokenCacheStorage(fileURL: configuration.plaintextFileURL,
                                                          lockTimeout: configuration.lockTimeout))
        }
        skipOrUse(.plaintext, used: false,
                  "not allowed (set \(MSALSecureTokenCacheConfig.allowPlaintextVariable)=1 or allowsPlaintext to allow it)")
        skipOrUse(.memoryOnly, used: true, "no protected storage could be used: tokens last as long as the process")
        return (.memoryOnly, MSALInMemoryTokenCacheStorage())
    }

    private mutating func secretService() -> MSALSecretServiceTokenCacheStorage? {
        guard let item = configuration.secretService else {
            skipOrUse(.secretService, used: false, "turned off by the application")
            return nil
        }
        #if !os(Linux)
        skipOrUse(.secretService, used: false, "used on Linux only")
        return nil
        #else
        guard let bus = configuration.environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else {
            skipOrUse(.secretService, used: false,
                      "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set: SSH, container or CI)")
            return nil
        }
        do {
            // libsecret first (a machine without it skips the tier at once), then the bounded probe of the bus, then
            // the service itself.
            let storage = try backends.secretService(configuration, item)
            if let reason = backends.secretServiceProbe(bus, configuration.secretServiceProbeTimeout) {
                skipOrUse(.secretService, used: false, reason)
                return nil
            }
            try storage.checkAvailable()
            skipOrUse(.secretService, used: true, "schema \(storage.schemaName), signal file \(storage.signalFileURL.path)")
            return storage
        } catch {
            skipOrUse(.secretService, used: false, Self.reason(error))
            return nil
        }
        #endif
    }

    private mutating func encryptedFile(_ protection: MSALTokenCacheProtection, store: (any MSALTokenCacheKeyStore)?,
                                        enabled: Bool,
                                        existingSource: MSALEncryptedCacheHeader.KeySource?) -> (any MSALTokenCacheStorage)? {
        guard enabled else {
            skipOrUse(protection, used: false, "turned off by the application")
            return nil
        }
        guard let store else {
            skipOrUse(protection, used: false, "not available on this system")
            return nil
        }
        // A cache encrypted with a key file stays with it while the key file exists, even when the kernel keyring is
        // preferred (a refused key file is reported by the key file tier; the cache is not taken for lost).
        if protection == .kernelKeyring, existingSource == .keyFile, configuration.usesKeyFile,
           Self.keyExists(backends.keyFile(configuration)) {
            skipOrUse(protection, used: false, "the existing encrypted cache was written with a key file")
            return nil
        }
        do {
            try store.checkAvailable()
        } catch {
            skipOrUse(protection, used: false, Self.reason(error))
            return nil
        }
        skipOrUse(protection, used: true, "\(store.location), cache file \(configuration.encryptedFileURL.path)")
        return MSALEncryptedFileTokenCacheStorage(fileURL: configuration.encryptedFileURL, keyStore: store,
                                                  lockTimeout: configuration.lockTimeout, logger: logger)
    }

    /// A cache encrypted with the kernel keyring's key (the tier that came first before) moves to the key file while
    /// that key is still there (the same boot): read with it, written back under the key file's key. Without it the
    /// file cannot be read and is set aside on first use, as any unreadable cache.
    private mutating func migrate(from kernel: any MSALTokenCacheKeyStore, to storage: any MSALTokenCacheStorage) {
        guard let storage = storage as? MSALEncryptedFileTokenCacheStorage, (try? kernel.readKey()) != nil else { return }
        let previous = MSALEncryptedFileTokenCacheStorage(fileURL: configuration.encryptedFileURL, keyStore: kernel,
                                                          lockTimeout: configuration.lockTimeout, logger: logger)
        guard let read = try? previous.read(),
              (try? storage.withExclusiveAccess({ try storage.write(read.data, migratingFrom: .kernelKeyring) })) != nil
        else { return }
        logger?.info("Token cache protection: the cache encrypted with the kernel keyring's key now uses the key file (kept across reboots).")
    }

    /// The key source in the existing encrypted file's header, if there is a readable one.
    private func existingKeySource() -> MSALEncryptedCacheHeader.KeySource? {
        guard let handle = FileHandle(forReadingAtPath: configuration.encryptedFileURL.path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: MSALEncryptedCacheHeader.size),
              head.count == MSALEncryptedCacheHeader.size,
              Array(head.prefix(MSALEncryptedCacheHeader.magic.count)) == MSALEncryptedCacheHeader.magic else { return nil }
        return MSALEncryptedCacheHeader.KeySource(rawValue: head[head.startIndex + 7])
    }

    /// Whether `store` holds a key, or something it refuses (which is not a lost key).
    private static func keyExists(_ store: any MSALTokenCacheKeyStore) -> Bool {
        do {
            return try store.readKey() != nil
        } catch {
            return true
        }
    }

    private mutating func skipOrUse(_ protection: MSALTokenCacheProtection, used: Bool, _ reason: String) {
        steps.append(MSALTokenCacheProtectionStep(protection: protection, isUsed: used, reason: reason))
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? MSALTokenCacheProtectionError { return error.description }
        if let info = error as? MSALErrorInfo {
            if let underlying = info.underlyingError as? MSALTokenCacheProtectionError { return underlying.description }
            return info.errorDescription
        }
        return "\(type(of: error))"
    }
}
