public import Foundation
import Crypto
import _CryptoExtras
import MSALCore
import SwiftASN1
import X509

extension MSALCertificateCredential {
    /// Reads a PKCS#12 file (`.pfx`, `.p12`): its private key and the certificate that key belongs to, then the
    /// file's other certificates as the chain — as MSAL for Python's `private_key_pfx_path` and azure-identity's
    /// certificate credentials accept it.
    ///
    /// The file may be protected with PBES2 (PBKDF2, AES-CBC: what OpenSSL 3, .NET and current Windows write) and an
    /// HMAC integrity check, or not encrypted at all. Files encrypted the legacy way (RC2, triple DES) are refused
    /// with the OpenSSL command that converts them.
    ///
    /// ```swift
    /// let pfx = try Data(contentsOf: URL(fileURLWithPath: "/etc/app/credential.pfx"))
    /// let certificate = try MSALCertificateCredential(pkcs12: pfx, password: password)
    /// ```
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` for a wrong password, a file that is not
    ///   PKCS#12, an unsupported encryption, no key or no certificate, and everything ``init(pem:sendCertificateChain:now:)``
    ///   refuses (a key that is not RSA of 2048 bits or more, an expired certificate...). No secret is in the error.
    public init(pkcs12 data: Data, password: String, sendCertificateChain: Bool = false, now: Date = Date()) throws {
        let container: PKCS12Container
        do {
            container = try PKCS12Container(der: Array(data), password: password)
        } catch .wrongPassword {
            throw MSALErrorInfo.invalidParameter("The PKCS#12 certificate credential could not be opened: wrong password.")
        } catch .unsupported(let what) {
            throw MSALErrorInfo.invalidParameter("The PKCS#12 certificate credential uses \(what), which is not supported.")
        } catch .malformed(let why) {
            throw MSALErrorInfo.invalidParameter("The PKCS#12 certificate credential cannot be read: \(why).")
        }
        let keyPEM = PEMDocument(type: "PRIVATE KEY", derBytes: container.privateKeyDER).pemString
        // The certificate of the key first, whatever the file's order.
        let publicKey = (try? _RSA.Signing.PrivateKey(pemRepresentation: keyPEM)).map { Certificate.PublicKey($0.publicKey) }
        var certificates = container.certificatesDER
        if let publicKey, let index = certificates.firstIndex(where: { (try? Certificate(derEncoded: $0))?.publicKey == publicKey }) {
            certificates.insert(certificates.remove(at: index), at: 0)
        }
        try self.init(privateKeyPEM: keyPEM, certificatesDER: certificates, sendCertificateChain: sendCertificateChain, now: now)
    }

    /// Reads a certificate credential file: PEM when it holds PEM blocks, else PKCS#12 with `password` (the `msal`
    /// tool's `--certificate`, the credential chain's `AZURE_CLIENT_CERTIFICATE_PATH`).
    public init(contentsOf data: Data, password: String?, sendCertificateChain: Bool = false, now: Date = Date()) throws {
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") {
            try self.init(pem: text, sendCertificateChain: sendCertificateChain, now: now)
        } else {
            try self.init(pkcs12: data, password: password ?? "", sendCertificateChain: sendCertificateChain, now: now)
        }
    }
}
