import MSALSupport
import Crypto
import Foundation
import SwiftASN1
import X509

import _CryptoExtras

/// A certificate registered as an app's client credential: its RSA public key and the thumbprints a client
/// assertion names it by.
package struct ClientCertificate: Sendable {
    /// The DER encoding of the certificate.
    let der: [UInt8]
    /// The key that verifies client assertions.
    let publicKey: _RSA.Signing.PublicKey
    /// SHA-1 of the DER encoding (what `x5t` carries, base64url-encoded).
    let sha1: Data
    /// SHA-256 of the DER encoding (what `x5t#S256` carries, base64url-encoded).
    let sha256: Data
    let notValidBefore: Date
    let notValidAfter: Date

    /// `x5t`: base64url SHA-1 thumbprint.
    var x5t: String { Base64URL.encode(sha1) }
    /// `x5t#S256`: base64url SHA-256 thumbprint.
    var x5tS256: String { Base64URL.encode(sha256) }
    /// The SHA-1 thumbprint in upper-case hex, as Entra's errors and the portal show it.
    var thumbprintHex: String { sha1.map { String(format: "%02X", $0) }.joined() }

    /// Why a PEM text could not be registered.
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Parses the first `CERTIFICATE` block of `pem` (other blocks, such as a private key, are ignored).
    package init(pem: String) throws(ParseError) {
        guard pem.utf8.count <= 64 * 1024 else { throw ParseError(description: "The PEM text is larger than 64 KiB.") }
        let documents: [PEMDocument]
        do { documents = try PEMDocument.parseMultiple(pemString: pem) } catch {
            throw ParseError(description: "The body is not PEM text with a '-----BEGIN CERTIFICATE-----' block.")
        }
        guard let document = documents.first(where: { $0.discriminator == "CERTIFICATE" }) else {
            throw ParseError(description: "The PEM text holds no CERTIFICATE block.")
        }
        let certificate: Certificate
        do { certificate = try Certificate(derEncoded: document.derBytes) } catch {
            throw ParseError(description: "The CERTIFICATE block is not a valid X.509 certificate.")
        }
        guard let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
            throw ParseError(description: "The certificate's key is not an RSA key; client assertions are verified with RSA (RS256, PS256).")
        }
        der = document.derBytes
        publicKey = key
        sha1 = Data(Insecure.SHA1.hash(data: document.derBytes))
        sha256 = Data(SHA256.hash(data: document.derBytes))
        notValidBefore = certificate.notValidBefore
        notValidAfter = certificate.notValidAfter
    }
}

/// The thumbprints of a registered certificate, as the control endpoint answers them.
public struct CertificateThumbprints: Sendable, Equatable {
    /// Base64url SHA-256 thumbprint (the JWT header `x5t#S256`).
    public let x5tS256: String
    /// Base64url SHA-1 thumbprint (the JWT header `x5t`).
    public let x5t: String
}

extension EmulatorCore {
    /// The parsed certificates of an app (cached by PEM text; unparseable entries are skipped).
    func clientCertificates(of app: EmulatedApplication) -> [ClientCertificate] {
        app.certificates.compactMap { pem in
            if let cached = certificateCache[pem] { return cached }
            guard let parsed = try? ClientCertificate(pem: pem) else { return nil }
            if certificateCache.count > 1000 { certificateCache.removeAll() }
            certificateCache[pem] = parsed
            return parsed
        }
    }

    /// Registers a PEM certificate as a client credential of an app (no effect if it is registered already).
    package func registerCertificate(_ pem: String, clientId: String) throws(ClientCertificate.ParseError) -> CertificateThumbprints? {
        guard let app = application(clientId) else { return nil }
        let certificate = try ClientCertificate(pem: pem)
        let known = clientCertificates(of: app).contains { $0.der == certificate.der }
        if !known {
            guard app.certificates.count < 50 else {
                throw ClientCertificate.ParseError(description: "The application already has 50 certificates.")
            }
            let normalized = (try? Certificate(derEncoded: certificate.der).serializeAsPEM().pemString) ?? pem
            config.applications = config.applications.map { entry in
                var entry = entry
                if entry.clientId == app.clientId { entry.certificates.append(normalized) }
                return entry
            }
        }
        return CertificateThumbprints(x5tS256: certificate.x5tS256, x5t: certificate.x5t)
    }
}
