import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras
import MSALTestSupport

/// Self-signed RSA certificates for certificate-credential tests, made fresh per test.
enum TestCertificates {
    struct Made {
        var keyPEM: String
        var certificatePEM: String
        var certificateDER: [UInt8]
        var publicKey: _RSA.Signing.PublicKey
        var bundle: String { keyPEM + "\n" + certificatePEM }
    }

    static func make(bits: _RSA.Signing.KeySize = .bits2048, notValidBefore: Date = Date().addingTimeInterval(-3600),
                     notValidAfter: Date = Date().addingTimeInterval(86_400), subject: String = "daemon") throws -> Made {
        let key = try _RSA.Signing.PrivateKey(keySize: bits)
        let name = try DistinguishedName { CommonName(subject) }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: name, subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        let pem = try certificate.serializeAsPEM().pemString
        return Made(keyPEM: key.pemRepresentation, certificatePEM: pem, certificateDER: der, publicKey: key.publicKey)
    }
}
