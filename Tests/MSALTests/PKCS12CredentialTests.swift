import Foundation
import Testing
import MSAL
@testable import MSALCertificates
@testable import MSALCore

/// PKCS#12 certificate credentials, read from files OpenSSL 3 wrote (the fuzz target's seeds: an RSA-2048 key and its
/// self-signed certificate, password `Passw0rd!` unless named otherwise).
@Suite("PKCS#12 certificate credentials")
struct PKCS12CredentialTests {
    static let corpus = FuzzRegressionTests.fuzzDirectory.appendingPathComponent("Corpus/pkcs12")
    static func file(_ name: String) throws -> Data { try Data(contentsOf: corpus.appendingPathComponent(name)) }
    /// A date inside the fixtures' validity (they were made on 2026-11-28 for 100 years).
    static let now = Date(timeIntervalSince1970: 1_830_000_000)

    @Test func anOpenSSL3FileGivesTheSameCredentialAsItsPEM() throws {
        let credential = try MSALCertificateCredential(pkcs12: Self.file("openssl3-aes256-sha256"), password: "Passw0rd!", now: Self.now)
        let plain = try MSALCertificateCredential(pkcs12: Self.file("unencrypted-no-mac"), password: "", now: Self.now)
        let empty = try MSALCertificateCredential(pkcs12: Self.file("empty-password"), password: "", now: Self.now)
        #expect(credential.thumbprintSHA256 == plain.thumbprintSHA256)
        #expect(credential.thumbprintSHA256 == empty.thumbprintSHA256)
        #expect(!credential.description.contains("PRIVATE"))
        // The file type is told by its content: the same bytes through the tool's and the chain's reader.
        let sniffed = try MSALCertificateCredential(contentsOf: Self.file("openssl3-aes256-sha256"), password: "Passw0rd!", now: Self.now)
        #expect(sniffed.thumbprintSHA256 == credential.thumbprintSHA256)
    }

    @Test func aWrongPasswordALegacyFileAndJunkAreTypedErrors() throws {
        #expect(throws: MSALErrorInfo.self) {
            try MSALCertificateCredential(pkcs12: Self.file("openssl3-aes256-sha256"), password: "wrong", now: Self.now)
        }
        do {
            _ = try MSALCertificateCredential(pkcs12: Self.file("openssl3-aes256-sha256"), password: "wrong", now: Self.now)
        } catch let error as MSALErrorInfo {
            #expect(error.errorDescription.contains("wrong password"))
            #expect(!error.errorDescription.contains("wrong\""))
        }
        do {
            _ = try MSALCertificateCredential(pkcs12: Self.file("legacy-3des"), password: "Passw0rd!", now: Self.now)
            Issue.record("a legacy file was read")
        } catch let error as MSALErrorInfo {
            #expect(error.errorDescription.contains("legacy") && error.errorDescription.contains("openssl pkcs12"))
        }
        #expect(throws: MSALErrorInfo.self) { try MSALCertificateCredential(pkcs12: Data("not a pfx".utf8), password: "", now: Self.now) }
        var truncated = try Self.file("openssl3-aes256-sha256")
        truncated.removeLast(100)
        #expect(throws: MSALErrorInfo.self) { try MSALCertificateCredential(pkcs12: truncated, password: "Passw0rd!", now: Self.now) }
    }

    @Test func theKeyDerivationMatchesRFC7292() {
        // A file's own MAC is the check: the derived key verified the OpenSSL file above. Here, the derivation's
        // shape: the requested length, and different ids give different keys.
        let mac = PKCS12Container.derive(SHA256Hash.self, password: PKCS12Container.bmpString("p"), salt: [1, 2, 3], id: 3,
                                         iterations: 2, length: 32)
        let other = PKCS12Container.derive(SHA256Hash.self, password: PKCS12Container.bmpString("p"), salt: [1, 2, 3], id: 1,
                                           iterations: 2, length: 40)
        #expect(mac.count == 32 && other.count == 40 && Array(other.prefix(32)) != mac)
    }

    @Test func anIterationCountAboveTheBoundIsRefused() throws {
        #expect(throws: PKCS12Container.Failure.self) {
            try PKCS12Container(der: Array(Self.file("openssl3-aes256-sha256")), password: "Passw0rd!", limits: .init(iterations: 100))
        }
    }
}

import Crypto
typealias SHA256Hash = Crypto.SHA256
