import Foundation
import Crypto
import _CryptoExtras
import SwiftASN1

extension PKCS12Container {
    // MARK: - Integrity (RFC 7292 §5 and appendix B)

    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]

    /// Checks MacData against the authenticated safe's bytes: a mismatch is a wrong password (or a changed file).
    static func verifyMAC(_ node: ASN1Node, over content: [UInt8], password: String, limits: Limits) throws {
        try PKCS12Container.lenientSequence(node, identifier: .sequence) { fields in
            guard let digestInfo = fields.next(), let saltNode = fields.next() else {
                throw Failure.malformed("the integrity data is incomplete")
            }
            let iterations = try fields.next().map { try Int(berEncoded: $0) } ?? 1
            let salt = try octets(saltNode)
            let (algorithm, expected) = try PKCS12Container.lenientSequence(digestInfo, identifier: .sequence) { parts -> (ASN1ObjectIdentifier, [UInt8]) in
                guard let algorithmNode = parts.next(), let digest = parts.next() else {
                    throw Failure.malformed("the integrity digest is incomplete")
                }
                return (try algorithmOID(algorithmNode), try octets(digest))
            }
            guard (1...limits.iterations).contains(iterations) else { throw Failure.malformed("an iteration count out of range") }
            // An empty password is its two-byte terminator for most writers, nothing at all for some.
            var candidates: [[UInt8]] = [bmpString(password)]
            if password.isEmpty { candidates.append([]) }
            for candidate in candidates {
                let computed: [UInt8]
                switch algorithm {
                case sha1: computed = mac(Insecure.SHA1.self, content, password: candidate, salt: salt, iterations: iterations)
                case sha256: computed = mac(SHA256.self, content, password: candidate, salt: salt, iterations: iterations)
                case sha384: computed = mac(SHA384.self, content, password: candidate, salt: salt, iterations: iterations)
                case sha512: computed = mac(SHA512.self, content, password: candidate, salt: salt, iterations: iterations)
                default: throw Failure.unsupported("the integrity algorithm \(algorithm)")
                }
                if computed.count == expected.count, zip(computed, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 { return }
            }
            throw Failure.wrongPassword
        }
    }

    /// The algorithm of an AlgorithmIdentifier.
    static func algorithmOID(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        try PKCS12Container.lenientSequence(node, identifier: .sequence) { parts in
            guard let oid = parts.next() else { throw Failure.malformed("an algorithm identifier is empty") }
            return try ASN1ObjectIdentifier(berEncoded: oid)
        }
    }

    static func mac<H: HashFunction>(_ hash: H.Type, _ content: [UInt8], password: [UInt8], salt: [UInt8],
                                     iterations: Int) -> [UInt8] {
        let key = derive(H.self, password: password, salt: salt, id: 3, iterations: iterations, length: H.Digest.byteCount)
        return Array(HMAC<H>.authenticationCode(for: content, using: SymmetricKey(data: key)))
    }

    /// A password as a BMPString (UTF-16 big-endian) with its two-byte terminator.
    static func bmpString(_ password: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for unit in password.utf16 { bytes += [UInt8(unit >> 8), UInt8(unit & 0xff)] }
        return bytes + [0, 0]
    }

    /// The RFC 7292 appendix B key derivation (used for the MAC key), diversified by `id` (3: MAC key).
    static func derive<H: HashFunction>(_ hash: H.Type, password passwordBytes: [UInt8], salt: [UInt8], id: UInt8,
                                        iterations: Int, length: Int) -> [UInt8] {
        let v = H.blockByteCount
        func stretch(_ bytes: [UInt8]) -> [UInt8] {
            guard !bytes.isEmpty else { return [] }
            let count = v * ((bytes.count + v - 1) / v)
            return (0..<count).map { bytes[$0 % bytes.count] }
        }
        var i = stretch(salt) + stretch(passwordBytes)
        let d = [UInt8](repeating: id, count: v)
        var result: [UInt8] = []
        while result.count < length {
            var a = Array(H.hash(data: d + i))
            for _ in 1..<iterations { a = Array(H.hash(data: a)) }
            result += a.prefix(length - result.count)
            guard result.count < length else { break }
            let b = stretch(a)
            for block in stride(from: 0, to: i.count, by: v) {
                var carry = 1
                for index in stride(from: v - 1, through: 0, by: -1) {
                    let sum = Int(i[block + index]) + Int(b[index]) + carry
                    i[block + index] = UInt8(sum & 0xff)
                    carry = sum >> 8
                }
            }
        }
        return result
    }

    // MARK: - Encryption (PBES2, RFC 8018)

    static let hmacSHA1: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 7]
    static let hmacSHA256: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 9]
    static let hmacSHA384: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 10]
    static let hmacSHA512: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 11]
    static let aesCBC: [ASN1ObjectIdentifier: Int] = [
        [2, 16, 840, 1, 101, 3, 4, 1, 2]: 16, [2, 16, 840, 1, 101, 3, 4, 1, 22]: 24, [2, 16, 840, 1, 101, 3, 4, 1, 42]: 32,
    ]

    /// Decrypts `ciphertext` with the algorithm named by `algorithm` (an AlgorithmIdentifier).
    static func decrypt(_ ciphertext: [UInt8], algorithm: ASN1Node, password: String, limits: Limits) throws -> [UInt8] {
        try PKCS12Container.lenientSequence(algorithm, identifier: .sequence) { parts in
            guard let oidNode = parts.next() else { throw Failure.malformed("no encryption algorithm") }
            let oid = try ASN1ObjectIdentifier(berEncoded: oidNode)
            if oid.oidComponents.starts(with: legacyPBEPrefix.oidComponents) {
                throw Failure.unsupported("the legacy RC2 or triple-DES encryption (convert the file: openssl pkcs12 "
                                          + "-legacy -in old.pfx -nodes | openssl pkcs12 -export -out new.pfx)")
            }
            guard oid == pbes2, let parameters = parts.next() else { throw Failure.unsupported("the encryption \(oid)") }
            return try PKCS12Container.lenientSequence(parameters, identifier: .sequence) { fields in
                guard let kdf = fields.next(), let scheme = fields.next() else {
                    throw Failure.malformed("the PBES2 parameters are incomplete")
                }
                let (cipherOID, iv) = try PKCS12Container.lenientSequence(scheme, identifier: .sequence) { items -> (ASN1ObjectIdentifier, [UInt8]) in
                    guard let cipher = items.next(), let ivNode = items.next() else {
                        throw Failure.malformed("the cipher parameters are incomplete")
                    }
                    return (try ASN1ObjectIdentifier(berEncoded: cipher), try octets(ivNode))
                }
                guard let keyLength = aesCBC[cipherOID] else { throw Failure.unsupported("the cipher \(cipherOID)") }
                guard iv.count == 16, !ciphertext.isEmpty, ciphertext.count % 16 == 0 else {
                    throw Failure.malformed("the ciphertext or its IV has the wrong size")
                }
                let key = try pbkdf2Key(kdf, password: password, length: keyLength, limits: limits)
                do {
                    return Array(try AES._CBC.decrypt(ciphertext, using: key, iv: AES._CBC.IV(ivBytes: iv)))
                } catch {
                    throw Failure.wrongPassword
                }
            }
        }
    }

    /// The PBKDF2 key of a PBES2 key derivation AlgorithmIdentifier, from the password's UTF-8 bytes.
    static func pbkdf2Key(_ node: ASN1Node, password: String, length: Int, limits: Limits) throws -> SymmetricKey {
        try PKCS12Container.lenientSequence(node, identifier: .sequence) { parts in
            guard let oidNode = parts.next(), try ASN1ObjectIdentifier(berEncoded: oidNode) == pbkdf2,
                  let parameters = parts.next() else { throw Failure.unsupported("a key derivation other than PBKDF2") }
            return try PKCS12Container.lenientSequence(parameters, identifier: .sequence) { fields in
                guard let saltNode = fields.next(), let countNode = fields.next() else {
                    throw Failure.malformed("the PBKDF2 parameters are incomplete")
                }
                let salt = try octets(saltNode)
                let iterations = try Int(berEncoded: countNode)
                guard (1...limits.iterations).contains(iterations) else { throw Failure.malformed("an iteration count out of range") }
                var prf = hmacSHA1
                while let next = fields.next() {
                    if next.identifier == .integer { continue }   // keyLength
                    prf = try algorithmOID(next)
                }
                let hash: KDF.Insecure.PBKDF2.HashFunction
                switch prf {
                case hmacSHA1: hash = .insecureSHA1
                case hmacSHA256: hash = .sha256
                case hmacSHA384: hash = .sha384
                case hmacSHA512: hash = .sha512
                default: throw Failure.unsupported("the PBKDF2 function \(prf)")
                }
                return try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: hash,
                                                         outputByteCount: length, unsafeUncheckedRounds: iterations)
            }
        }
    }
}
