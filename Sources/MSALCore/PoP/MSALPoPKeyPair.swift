public import Foundation
import Crypto
import _CryptoExtras

/// The RSA key that proof-of-possession tokens are bound to: its public part goes to the identity provider by
/// reference (`req_cnf`: its RFC 7638 thumbprint) and in each signed request (`cnf.jwk`); its private part signs those
/// requests and never leaves the process or the store that keeps it.
public final class MSALPoPKeyPair: Sendable {
    /// How the private key signs: in this process, or where the key is kept (a keychain, a hardware module).
    private enum Signer: Sendable {
        case software(_RSA.Signing.PrivateKey)
        case external(@Sendable (Data) throws -> Data)
    }

    private let signer: Signer
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
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try key.publicKey.getKeyPrimitives()
        try self.init(signer: .software(key), modulus: primitives.modulus, exponent: primitives.publicExponent,
                      algorithm: algorithm)
    }

    /// The key of a PEM private key (PKCS #1 or PKCS #8) of at least 2048 bits.
    ///
    /// - Throws: ``MSALErrorInfo`` (``MSALInternalError/internalErrorInvalidParameter``) when it is not one.
    public convenience init(pemRepresentation: String, algorithm: Algorithm = .RS256) throws {
        let key: _RSA.Signing.PrivateKey
        let primitives: _RSA.Signing.PublicKey.Primitives
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: pemRepresentation)
            primitives = try key.publicKey.getKeyPrimitives()
        } catch {
            throw MSALErrorInfo.invalidParameter("The proof-of-possession key is not an RSA private key of 2048 bits or more.")
        }
        try self.init(signer: .software(key), modulus: primitives.modulus, exponent: primitives.publicExponent,
                      algorithm: algorithm)
    }

    /// A key kept elsewhere — the keychain, the Secure Enclave's neighbour, a hardware module — that this library never
    /// reads: its public modulus and exponent (unsigned big-endian), and `sign`, which returns the signature of a
    /// message (the signing input of a signed request, not its digest) with ``algorithm``.
    ///
    /// - Throws: ``MSALErrorInfo`` (``MSALInternalError/internalErrorInvalidParameter``) when the modulus is under 2048
    ///   bits or the exponent is empty.
    public convenience init(modulus: Data, publicExponent: Data, algorithm: Algorithm = .RS256,
                            sign: @escaping @Sendable (_ message: Data) throws -> Data) throws {
        try self.init(signer: .external(sign), modulus: modulus, exponent: publicExponent, algorithm: algorithm)
    }

    /// A key kept elsewhere whose public key is `publicKeyDER` (PKCS #1 `RSAPublicKey` or SubjectPublicKeyInfo DER, as
    /// a keychain exports it), read by swift-crypto.
    package convenience init(publicKeyDER: Data, algorithm: Algorithm = .RS256,
                             sign: @escaping @Sendable (_ message: Data) throws -> Data) throws {
        let primitives: _RSA.Signing.PublicKey.Primitives
        do {
            primitives = try _RSA.Signing.PublicKey(derRepresentation: publicKeyDER).getKeyPrimitives()
        } catch {
            throw MSALErrorInfo.invalidParameter("The proof-of-possession public key is not an RSA key of 2048 bits or more.")
        }
        try self.init(signer: .external(sign), modulus: primitives.modulus, exponent: primitives.publicExponent,
                      algorithm: algorithm)
    }

    private init(signer: Signer, modulus: Data, exponent: Data, algorithm: Algorithm) throws {
        let n = Data(modulus.drop { $0 == 0 }), e = Data(exponent.drop { $0 == 0 })
        guard n.count >= 256, n.count <= 2048, !e.isEmpty, e.count <= 8 else {
            throw MSALErrorInfo.invalidParameter("The proof-of-possession key is not an RSA key of 2048 bits or more.")
        }
        self.signer = signer
        self.algorithm = algorithm
        jsonWebKey = "{\"e\":\"\(Base64URL.encode(e))\",\"kty\":\"RSA\",\"n\":\"\(Base64URL.encode(n))\"}"
        keyId = Base64URL.encode(Data(SHA256.hash(data: Data(jsonWebKey.utf8))))
    }

    /// The private key, PEM (PKCS #8), for a store that keeps it; nil for a key kept elsewhere.
    public var pemRepresentation: String? {
        guard case .software(let key) = signer else { return nil }
        return key.pkcs8PEMRepresentation
    }

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
        switch signer {
        case .software(let key):
            let padding: _RSA.Signing.Padding = algorithm == .PS256 ? .PSS : .insecurePKCS1v1_5
            return try key.signature(for: SHA256.hash(data: data), padding: padding).rawRepresentation
        case .external(let sign):
            return try sign(data)
        }
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
