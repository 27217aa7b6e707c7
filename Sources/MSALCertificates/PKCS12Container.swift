import Foundation
import Crypto
import _CryptoExtras
import SwiftASN1

/// The private key and certificates of a PKCS#12 (`.pfx`, `.p12`) file (RFC 7292), as MSAL for Python and
/// azure-identity accept a certificate credential.
///
/// Read: the password-integrity MAC (HMAC-SHA-1/256/384/512 with the RFC 7292 key derivation), then the safe
/// contents, plain or encrypted with PBES2 (PBKDF2 with HMAC-SHA-1/256/384/512, AES-128/192/256-CBC: what OpenSSL 3,
/// .NET and current Windows write). The legacy RC2 and triple-DES encryptions are refused with the command that
/// converts the file. Everything is outside input: sizes and iteration counts are bounded, every failure is a typed
/// error, no secret appears in one.
struct PKCS12Container {
    /// The unencrypted PKCS#8 private key.
    var privateKeyDER: [UInt8]
    /// The DER certificates, in file order.
    var certificatesDER: [[UInt8]]

    /// Why a file could not be read.
    enum Failure: Error, Equatable {
        case malformed(String)
        case wrongPassword
        case unsupported(String)
    }

    static let maximumSize = 1 << 20

    /// Bounds on what a file may ask for.
    struct Limits {
        /// The largest iteration count taken from a file (OpenSSL writes 2,048; .NET and Windows up to 600,000).
        var iterations = 1_000_000
    }

    init(der bytes: [UInt8], password: String, limits: Limits = Limits()) throws(Failure) {
        guard bytes.count <= Self.maximumSize else { throw .malformed("the file is larger than 1 MiB") }
        do {
            let root = try BER.parse(bytes)
            var key: [UInt8]?
            var certificates: [[UInt8]] = []
            try PKCS12Container.lenientSequence(root, identifier: .sequence) { nodes in
                guard let version = nodes.next(), try Int(berEncoded: version) == 3 else {
                    throw Failure.malformed("not a PKCS#12 version 3 file")
                }
                guard let authSafe = nodes.next() else { throw Failure.malformed("no authenticated safe") }
                let content = try Self.dataContent(authSafe)
                if let macData = nodes.next() {
                    try Self.verifyMAC(macData, over: content, password: password, limits: limits)
                }
                let safes = try BER.parse(content)
                try PKCS12Container.lenientSequence(safes, identifier: .sequence) { infos in
                    while let info = infos.next() {
                        let safeContents = try Self.safeContents(info, password: password, limits: limits)
                        try Self.readBags(safeContents, password: password, limits: limits, key: &key, certificates: &certificates)
                    }
                }
            }
            guard let key else { throw Failure.malformed("no private key") }
            guard !certificates.isEmpty else { throw Failure.malformed("no certificate") }
            privateKeyDER = key
            certificatesDER = certificates
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .malformed("not a PKCS#12 file (\(error))")
        }
    }

    /// A SEQUENCE's children given to `builder`; optional trailing fields it does not read (attributes, parameters,
    /// extensions) are skipped rather than refused.
    static func lenientSequence<T>(_ node: ASN1Node, identifier: ASN1Identifier,
                                   _ builder: (inout ASN1NodeCollection.Iterator) throws -> T) throws -> T {
        try BER.sequence(node, identifier: identifier) { nodes in
            let result = try builder(&nodes)
            while nodes.next() != nil {}
            return result
        }
    }

    // MARK: - Object identifiers

    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let encryptedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 6]
    static let keyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 1]
    static let shroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 2]
    static let certBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 3]
    static let x509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 22, 1]
    static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 13]
    static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 12]
    static let legacyPBEPrefix: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1]

    // MARK: - Structure

    /// The OCTET STRING of an id-data ContentInfo.
    static func dataContent(_ node: ASN1Node) throws -> [UInt8] {
        try PKCS12Container.lenientSequence(node, identifier: .sequence) { nodes in
            guard let type = nodes.next(), try ASN1ObjectIdentifier(berEncoded: type) == data,
                  let wrapped = nodes.next() else { throw Failure.malformed("the content is not data") }
            return try BER.explicitlyTagged(wrapped, tagNumber: 0, tagClass: .contextSpecific) { try octets($0) }
        }
    }

    /// An OCTET STRING's bytes, primitive or (BER) constructed from pieces.
    static func octets(_ node: ASN1Node, identifier: ASN1Identifier = .octetString) throws -> [UInt8] {
        guard node.identifier == identifier else { throw Failure.malformed("an octet string was expected") }
        switch node.content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let pieces):
            var joined: [UInt8] = []
            for piece in pieces { joined += try octets(piece) }
            guard joined.count <= maximumSize else { throw Failure.malformed("the file is larger than 1 MiB") }
            return joined
        }
    }

    /// The SafeContents of one ContentInfo of the authenticated safe: plain, or decrypted.
    static func safeContents(_ info: ASN1Node, password: String, limits: Limits) throws -> [UInt8] {
        try PKCS12Container.lenientSequence(info, identifier: .sequence) { nodes in
            guard let typeNode = nodes.next(), let wrapped = nodes.next() else {
                throw Failure.malformed("a content of the safe is incomplete")
            }
            let type = try ASN1ObjectIdentifier(berEncoded: typeNode)
            if type == data {
                return try BER.explicitlyTagged(wrapped, tagNumber: 0, tagClass: .contextSpecific) { try octets($0) }
            }
            guard type == encryptedData else { throw Failure.unsupported("a content of type \(type)") }
            return try BER.explicitlyTagged(wrapped, tagNumber: 0, tagClass: .contextSpecific) { encrypted in
                try PKCS12Container.lenientSequence(encrypted, identifier: .sequence) { fields in
                    _ = fields.next()   // version
                    guard let contentInfo = fields.next() else { throw Failure.malformed("no encrypted content") }
                    return try PKCS12Container.lenientSequence(contentInfo, identifier: .sequence) { parts in
                        _ = parts.next()   // content type: data
                        guard let algorithm = parts.next(), let body = parts.next() else {
                            throw Failure.malformed("the encrypted content is incomplete")
                        }
                        let ciphertext = try octets(body, identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific))
                        return try decrypt(ciphertext, algorithm: algorithm, password: password, limits: limits)
                    }
                }
            }
        }
    }

    /// Reads the key and certificate bags of a SafeContents.
    static func readBags(_ contents: [UInt8], password: String, limits: Limits, key: inout [UInt8]?,
                         certificates: inout [[UInt8]]) throws {
        let root = try BER.parse(contents)
        try PKCS12Container.lenientSequence(root, identifier: .sequence) { bags in
            while let bag = bags.next() {
                try PKCS12Container.lenientSequence(bag, identifier: .sequence) { fields in
                    guard let idNode = fields.next(), let valueNode = fields.next() else {
                        throw Failure.malformed("a bag is incomplete")
                    }
                    let id = try ASN1ObjectIdentifier(berEncoded: idNode)
                    try BER.explicitlyTagged(valueNode, tagNumber: 0, tagClass: .contextSpecific) { value in
                        switch id {
                        case keyBag:
                            guard key == nil else { throw Failure.unsupported("several private keys") }
                            key = Array(value.encodedBytes)
                        case shroudedKeyBag:
                            guard key == nil else { throw Failure.unsupported("several private keys") }
                            key = try PKCS12Container.lenientSequence(value, identifier: .sequence) { parts in
                                guard let algorithm = parts.next(), let body = parts.next() else {
                                    throw Failure.malformed("the encrypted key is incomplete")
                                }
                                return try decrypt(try octets(body), algorithm: algorithm, password: password, limits: limits)
                            }
                        case certBag:
                            try PKCS12Container.lenientSequence(value, identifier: .sequence) { parts in
                                guard let typeNode = parts.next(), let certificate = parts.next() else {
                                    throw Failure.malformed("a certificate bag is incomplete")
                                }
                                guard try ASN1ObjectIdentifier(berEncoded: typeNode) == x509Certificate else { return }
                                certificates.append(try BER.explicitlyTagged(certificate, tagNumber: 0,
                                                                             tagClass: .contextSpecific) { try octets($0) })
                            }
                        default:
                            break   // CRL and secret bags: not needed for a credential
                        }
                    }
                }
            }
        }
    }
}
