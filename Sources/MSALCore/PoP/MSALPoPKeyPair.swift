package import Foundation
import Crypto
import _CryptoExtras

/// The RSA key that proof-of-possession tokens are bound to: its public part goes to the identity provider by
/// reference (`req_cnf`: its RFC 7638 thumbprint) and in each signed request (`cnf.jwk`); its private part signs those
/// requests and never leaves the process or the store that keeps it.
public final class MSALPoPKeyPair: Sendable {
    private let key: _RSA.Signing.PrivateKey
    /// The public key as a JSON Web Key with only its required members, in RFC 7638's order:
    /// `{"e":"…","kty":"RSA","n":"…"}`.
    public let jsonWebKey: String
    /// The key id: base64url of the SHA-256 of ``jsonWebKey`` (RFC 7638), which bound tokens carry in `cnf.kid`.
    public let keyId: String
    /// The signature algorithm of signed requests: `RS256` (as MSAL for iOS/macOS signs) or `PS256` (as MSAL.NET does).
    public let algorithm: Algorithm

    /// A signed request's signature algorithm.
    public enum Algorithm: String, Sendable {
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case RS256
        /// RSASSA-PSS with SHA-256.
        case PS256
    }

    /// A new RSA-2048 key.
    public convenience init(algorithm: Algorithm = .RS256) throws {
        try self.init(key: _RSA.Signing.PrivateKey(keySize: .bits2048), algorithm: algorithm)
    }

    /// The key of a PEM private key (PKCS #1 or PKCS #8) of at least 2048 bits.
    ///
    /// - Throws: ``MSALErrorInfo`` (``MSALInternalError/internalErrorInvalidParameter``) when it is not one.
    public convenience init(pemRepresentation: String, algorithm: Algorithm = .RS256) throws {
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: pemRepresentation)
        } catch {
            throw MSALErrorInfo.invalidParameter("The proof-of-possession key is not an RSA private key of 2048 bits or more.")
        }
        try self.init(key: key, algorithm: algorithm)
    }

    private init(key: _RSA.Signing.PrivateKey, algorithm: Algorithm) throws {
        self.key = key
        self.algorithm = algorithm
        let primitives = try key.publicKey.getKeyPrimitives()
        jsonWebKey = "{\"e\":\"\(Base64URL.encode(primitives.publicExponent))\",\"kty\":\"RSA\",\"n\":\"\(Base64URL.encode(primitives.modulus))\"}"
        keyId = Base64URL.encode(Data(SHA256.hash(data: Data(jsonWebKey.utf8))))
    }

    /// The private key, PEM (PKCS #8): for a store that keeps it.
    public var pemRepresentation: String { key.pkcs8PEMRepresentation }

    /// `req_cnf` of a token request: base64url of `{"kid":"<key id>"}`.
    var requestConfirmation: String {
        Base64URL.encode(Data("{\"kid\":\"\(keyId)\"}".utf8))
    }

    /// The public key's members, for a signed request's `cnf.jwk`.
    var publicJWK: [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(jsonWebKey.utf8)) as? [String: String]) ?? [:]
    }

    /// One signature of a signed request's size, for the benchmark's figures.
    package static func benchmarkSignature(_ key: MSALPoPKeyPair) throws -> Data {
        try key.sign(Data(repeating: 0x61, count: 1400))
    }

    /// The signature of `data` with ``algorithm``.
    func sign(_ data: Data) throws -> Data {
        let padding: _RSA.Signing.Padding = algorithm == .PS256 ? .PSS : .insecurePKCS1v1_5
        return try key.signature(for: SHA256.hash(data: data), padding: padding).rawRepresentation
    }
}

/// Where an application keeps its proof-of-possession key (``MSALPublicClientApplicationConfig/popKeyStore``).
public protocol MSALPoPKeyStore: Sendable {
    /// The key: the one kept, or a new one kept from now on.
    func keyPair() throws -> MSALPoPKeyPair
    /// Replaces the key with a new one (rotation): tokens bound to the old key are no longer found.
    func rotate() throws -> MSALPoPKeyPair
}

/// A key held in memory for the life of the store (servers, tests): made on first use.
public final class MSALInMemoryPoPKeyStore: MSALPoPKeyStore {
    private let current = LockedBox<MSALPoPKeyPair?>(nil)
    private let algorithm: MSALPoPKeyPair.Algorithm

    /// A store that makes its key on first use, signing with `algorithm`.
    public init(algorithm: MSALPoPKeyPair.Algorithm = .RS256) {
        self.algorithm = algorithm
    }

    /// A store holding `keyPair`.
    public init(keyPair: MSALPoPKeyPair) {
        algorithm = keyPair.algorithm
        current.set(keyPair)
    }

    public func keyPair() throws -> MSALPoPKeyPair {
        if let key = current.get() { return key }
        let made = try MSALPoPKeyPair(algorithm: algorithm)
        return current.withLock { stored in
            if let stored { return stored }
            stored = made
            return made
        }
    }

    public func rotate() throws -> MSALPoPKeyPair {
        let made = try MSALPoPKeyPair(algorithm: algorithm)
        current.set(made)
        return made
    }
}
