import Crypto
import Foundation
import MSAL
import MSALTesting
import Testing
import _CryptoExtras
@testable import MSALCertificates
@testable import MSALCore
import MSALTestSupport

/// Certificate credentials: what they accept, and the client assertions they sign (RFC 7523).
@Suite("Certificate credentials")
struct CertificateCredentialTests {
    static let endpoint = URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token")!

    func decode(_ segment: Substring) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(String(segment)))
        let object = try JSONSerialization.jsonObject(with: data)
        return try #require(object as? [String: Any])
    }

    @Test(arguments: [true, false])
    func theAssertionIsSignedWithTheKeyAndNamesTheCertificate(supportsPSS: Bool) throws {
        let made = try TestCertificates.make()
        let credential = try MSALCertificateCredential(pem: made.bundle)
        let now = Date()
        let request = MSALClientAssertionRequest(clientId: "client-1", tokenEndpoint: Self.endpoint,
                                                 supportsPSS: supportsPSS, now: now)
        let jwt = try credential.signedAssertion(for: request)
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3)
        let header = try decode(parts[0])
        let claims = try decode(parts[1])
        #expect(header["alg"] as? String == (supportsPSS ? "PS256" : "RS256"))
        #expect(header["typ"] as? String == "JWT")
        let thumbprint = Base64URL.encode(Data(SHA256.hash(data: made.certificateDER)))
        #expect(header["x5t#S256"] as? String == thumbprint)
        #expect(credential.thumbprintSHA256 == thumbprint)
        #expect((header["x5t"] != nil) == !supportsPSS)
        #expect(header["x5c"] == nil)
        #expect(claims["aud"] as? String == Self.endpoint.absoluteString)
        #expect(claims["iss"] as? String == "client-1")
        #expect(claims["sub"] as? String == "client-1")
        let issued = try #require(claims["iat"] as? Int)
        #expect(issued == Int(now.timeIntervalSince1970))
        #expect(claims["nbf"] as? Int == issued)
        #expect(claims["exp"] as? Int == issued + 600)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Base64URL.decode(String(parts[2]))))
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        #expect(made.publicKey.isValidSignature(signature, for: signed, padding: supportsPSS ? .PSS : .insecurePKCS1v1_5))
        let again = try credential.signedAssertion(for: request)
        #expect(try decode(again.split(separator: ".")[1])["jti"] as? String != claims["jti"] as? String)
    }

    @Test func theChainIsSentWhenAsked() throws {
        let made = try TestCertificates.make()
        let credential = try MSALCertificateCredential(privateKeyPEM: made.keyPEM, certificatePEM: made.certificatePEM,
                                                       sendCertificateChain: true)
        let jwt = try credential.signedAssertion(for: MSALClientAssertionRequest(
            clientId: "c", tokenEndpoint: Self.endpoint, supportsPSS: true))
        let header = try decode(jwt.split(separator: ".")[0])
        #expect(header["x5c"] as? [String] == [Data(made.certificateDER).base64EncodedString()])
    }

    @Test func aKeyOfAnotherCertificateIsRefused() throws {
        let one = try TestCertificates.make()
        let other = try TestCertificates.make()
        #expect { try MSALCertificateCredential(privateKeyPEM: one.keyPEM, certificatePEM: other.certificatePEM) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.internalCode == .internalErrorInvalidParameter && info?.errorDescription.contains("does not belong") == true
        }
    }

    @Test func anExpiredOrNotYetValidCertificateIsRefused() throws {
        let expired = try TestCertificates.make(notValidBefore: Date().addingTimeInterval(-7200),
                                                notValidAfter: Date().addingTimeInterval(-3600))
        #expect { try MSALCertificateCredential(pem: expired.bundle) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("expired") == true
        }
        let future = try TestCertificates.make(notValidBefore: Date().addingTimeInterval(3600),
                                               notValidAfter: Date().addingTimeInterval(7200))
        #expect { try MSALCertificateCredential(pem: future.bundle) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("not valid before") == true
        }
        // A certificate that expires while the application runs stops signing, with the same error.
        let short = try TestCertificates.make(notValidAfter: Date().addingTimeInterval(60))
        let credential = try MSALCertificateCredential(pem: short.bundle)
        #expect(throws: MSALErrorInfo.self) {
            try credential.signedAssertion(for: MSALClientAssertionRequest(
                clientId: "c", tokenEndpoint: Self.endpoint, supportsPSS: true, now: Date().addingTimeInterval(120)))
        }
    }

    @Test(arguments: ["", "junk", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                      "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"])
    func unreadableBundlesAreTypedErrors(pem: String) {
        #expect { try MSALCertificateCredential(pem: pem) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter
        }
    }

    @Test func theKeyIsNeverPrinted() throws {
        let made = try TestCertificates.make()
        let credential = try MSALCertificateCredential(pem: made.bundle)
        let printed = "\(credential) \(MSALClientCredential.certificate(credential))"
        #expect(!printed.contains(made.keyPEM.split(separator: "\n")[1]))
        #expect(printed.contains(credential.thumbprintSHA256))
    }

    @Test func theWorkloadIdentityFileIsReadAgainWhenItChanges() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-wi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token")
        try "first.token.value\n".write(to: file, atomically: true, encoding: .utf8)
        let reader = FederatedTokenFile(path: file.path)
        #expect(try reader.read() == "first.token.value")
        try "second.token.value-longer".write(to: file, atomically: true, encoding: .utf8)
        #expect(try reader.read() == "second.token.value-longer")
        #expect(throws: MSALErrorInfo.self) { try FederatedTokenFile(path: nil).read() }
        #expect(throws: MSALErrorInfo.self) { try FederatedTokenFile(path: directory.path).read() }
        #expect(throws: MSALErrorInfo.self) { try FederatedTokenFile(path: directory.appendingPathComponent("none").path).read() }
        try Data(count: FederatedTokenFile.maximumBytes + 1).write(to: file)
        #expect(throws: MSALErrorInfo.self) { try reader.read() }
    }
}
