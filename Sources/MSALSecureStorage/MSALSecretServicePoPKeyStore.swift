import Foundation
public import MSALCore
import MSALSupport

/// The proof-of-possession key (``MSALPoPKeyPair``) kept in the Secret Service — the desktop keyring, unlocked with
/// the user's session — as one item of schema ``schema`` named by `key_name`: the private key (PEM, PKCS #8) as the
/// secret, never in a file. Made on first use; ``rotate()`` replaces it (tokens bound to the old key are then not
/// used again: they are cached under the old key id). The key is read once per store and kept in memory.
///
/// ```swift
/// config.popKeyStore = try MSALSecretServicePoPKeyStore()
/// ```
public final class MSALSecretServicePoPKeyStore: MSALPoPKeyStore {
    /// The items' schema (libsecret's `xdg:schema`).
    public static let schema = "com.microsoft.msal.pop_key"

    /// The item's `key_name`.
    public let name: String
    private let backend: any SecretServiceBackend
    private let kept = LockedBox<MSALPoPKeyPair?>(nil)

    /// A store of the key named `name` in the Secret Service.
    ///
    /// - Throws: ``MSALErrorInfo`` (underlying ``MSALTokenCacheProtectionError/secretServiceFailed(_:)``) when
    ///   libsecret cannot be loaded (or on platforms other than Linux). It does not contact the service until a key
    ///   is asked for.
    public convenience init(name: String = "default") throws {
        self.init(name: name, backend: try libSecretBackend())
    }

    init(name: String, backend: any SecretServiceBackend) {
        self.name = name
        self.backend = backend
    }

    private var attributes: [String: String] { ["key_name": name] }

    /// The kept key, else the stored one, else a new one stored from now on.
    ///
    /// - Throws: ``MSALErrorInfo`` when the service refuses (a locked keyring, no service), or the stored secret is
    ///   not an RSA private key of 2048 bits or more (it is then left as it is).
    public func keyPair() throws -> MSALPoPKeyPair {
        if let key = kept.get() { return key }
        if let stored = try lookUp() {
            let key = try MSALPoPKeyPair(pemRepresentation: stored)
            kept.set(key)
            return key
        }
        return try rotate()
    }

    /// A new key, stored in place of the old one.
    public func rotate() throws -> MSALPoPKeyPair {
        let key = try MSALPoPKeyPair()
        do {
            try backend.store(schema: Self.schema, attributes: attributes, label: "MSAL proof-of-possession key (\(name))",
                              collection: nil, secret: key.pemRepresentation ?? "")
        } catch {
            throw Self.failure(error)
        }
        kept.set(key)
        return key
    }

    private func lookUp() throws -> String? {
        do {
            return try backend.lookup(schema: Self.schema, attributes: attributes)
        } catch {
            throw Self.failure(error)
        }
    }

    private static func failure(_ error: any Error) -> MSALErrorInfo {
        if let info = error as? MSALErrorInfo { return info }
        if let protection = error as? MSALTokenCacheProtectionError { return protection.errorInfo(file: nil) }
        return MSALTokenCacheProtectionError.secretServiceFailed("\(type(of: error))").errorInfo(file: nil)
    }
}
