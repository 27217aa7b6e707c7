public import Foundation
import Crypto
import _CryptoExtras
public import MSALCore
import SwiftASN1
import X509

/// A certificate credential for a confidential client: an RSA private key (2048 bits or more) and its X.509
/// certificate, optionally with the rest of its chain. It signs a client assertion (RFC 7523) for every token
/// request: `PS256` where the authority accepts it (Microsoft Entra ID), else `RS256`, with the certificate's
/// SHA-256 thumbprint (`x5t#S256`), a ten-minute lifetime, a fresh `jti` and the token endpoint as audience.
///
/// ```swift
/// let certificate = try MSALCertificateCredential(pem: String(contentsOfFile: "/etc/app/cert.pem", encoding: .utf8))
/// config = MSALConfidentialClientApplicationConfig(clientId: id, clientCredential: .certificate(certificate),
///                                                  authority: authority)
/// ```
///
/// Set ``sendCertificateChain`` for subject name and issuer authentication (the chain goes in `x5c`).
///
/// Creation fails with ``MSALInternalError/internalErrorInvalidParameter`` when the PEM holds no key or no
/// certificate, the key is encrypted, not RSA or shorter than 2048 bits, the key does not match the certificate,
/// or the certificate is expired or not yet valid. The key never appears in `description`, logs or errors.
public struct MSALCertificateCredential: Sendable, CustomStringConvertible {
    let privateKey: _RSA.Signing.PrivateKey
    /// The DER bytes of the certificate, then of the rest of its chain.
    let chain: [[UInt8]]
    /// When the certificate stops being valid.
    public let notValidAfter: Date
    /// When the certificate starts being valid.
    public let notValidBefore: Date
    /// The certificate's SHA-256 thumbprint, base64url (the `x5t#S256` header of assertions).
    public let thumbprintSHA256: String
    /// The certificate's SHA-1 thumbprint, base64url (the `x5t` header, sent with `RS256` only).
    public let thumbprintSHA1: String
    /// Whether assertions carry the certificate chain (`x5c`), for subject name and issuer authentication.
    public var sendCertificateChain: Bool

    /// Reads a PEM bundle holding the private key (`PRIVATE KEY` or `RSA PRIVATE KEY`) and the certificate
    /// followed by its chain (`CERTIFICATE` blocks), in any order.
    public init(pem: String, sendCertificateChain: Bool = false, now: Date = Date()) throws {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw MSALErrorInfo.invalidParameter("The certificate credential is not readable PEM.")
        }
        let keys = documents.filter { $0.discriminator == "PRIVATE KEY" || $0.discriminator == "RSA PRIVATE KEY" }
        if documents.contains(where: { $0.discriminator == "ENCRYPTED PRIVATE KEY" }) {
            throw MSALErrorInfo.invalidParameter("The certificate credential's private key is encrypted; decrypt it first.")
        }
        guard keys.count == 1, let key = keys.first else {
            throw MSALErrorInfo.invalidParameter("The certificate credential needs exactly one RSA private key in PEM.")
        }
        let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }
        guard !certificates.isEmpty else {
            throw MSALErrorInfo.invalidParameter("The certificate credential has no CERTIFICATE block.")
        }
        try self.init(privateKeyPEM: key.pemString, certificatesDER: certificates.map(\.derBytes),
                      sendCertificateChain: sendCertificateChain, now: now)
    }

    /// Reads a private key PEM and a certificate PEM (the certificate first, then its chain).
    public init(privateKeyPEM: String, certificatePEM: String, sendCertificateChain: Bool = false, now: Date = Date()) throws {
        try self.init(pem: privateKeyPEM + "\n" + certificatePEM, sendCertificateChain: sendCertificateChain, now: now)
    }

    init(privateKeyPEM: String, certificatesDER: [[UInt8]], sendCertificateChain: Bool, now: Date) throws {
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw MSALErrorInfo.invalidParameter("The certificate credential's private key is not an unencrypted RSA key.")
        }
        guard key.keySizeInBits >= 2048 else {
            throw MSALErrorInfo.invalidParameter(
                "The certificate credential's RSA key has \(key.keySizeInBits) bits; at least 2048 are needed.")
        }
        let leaf: Certificate
        do {
            leaf = try Certificate(derEncoded: certificatesDER[0])
        } catch {
            throw MSALErrorInfo.invalidParameter("The certificate credential's certificate is not a readable X.509 certificate.")
        }
        guard leaf.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw MSALErrorInfo.invalidParameter(
                "The private key does not belong to the certificate (its public key is another one).")
        }
        self.privateKey = key
        self.chain = certificatesDER
        self.notValidBefore = leaf.notValidBefore
        self.notValidAfter = leaf.notValidAfter
        self.thumbprintSHA256 = Base64URL.encode(Data(SHA256.hash(data: certificatesDER[0])))
        self.thumbprintSHA1 = Base64URL.encode(Data(Insecure.SHA1.hash(data: certificatesDER[0])))
        self.sendCertificateChain = sendCertificateChain
        try checkValidity(at: now)
    }

    /// Throws when the certificate is not valid at `now`.
    func checkValidity(at now: Date) throws {
        if now > notValidAfter {
            throw MSALErrorInfo.invalidParameter(
                "The certificate credential expired on \(Self.format(notValidAfter)); renew the certificate.")
        }
        if now < notValidBefore {
            throw MSALErrorInfo.invalidParameter(
                "The certificate credential is not valid before \(Self.format(notValidBefore)).")
        }
    }

    public var description: String {
        "MSALCertificateCredential(x5t#S256: \(thumbprintSHA256), notValidAfter: \(Self.format(notValidAfter)), "
            + "privateKey: <redacted>)"
    }

    static func format(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}

extension MSALClientCredential {
    /// A certificate credential: every token request carries a client assertion signed with its key.
    public static func certificate(_ certificate: MSALCertificateCredential) -> MSALClientCredential {
        .signedAssertion(named: "certificate") { request in
            try certificate.signedAssertion(for: request)
        }
    }
}
