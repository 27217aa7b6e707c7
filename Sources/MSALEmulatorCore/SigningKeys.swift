import Crypto
import Foundation
import MSALSupport

import _CryptoExtras

/// RSA signing keys generated at start, published as a JWKS, and rotated on demand.
package final class SigningKeys: Sendable {
    struct Key: Sendable {
        let kid: String
        let privateKey: _RSA.Signing.PrivateKey
    }

    /// Newest key first; the first key signs, all keys are published.
    private let keys: LockedBox<[Key]>

    package init() throws {
        keys = LockedBox([try SigningKeys.makeKey()])
    }

    private static func makeKey() throws -> Key {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let der = key.publicKey.derRepresentation
        let kid = Base64URL.encode(Data(SHA256.hash(data: der)).prefix(20))
        return Key(kid: kid, privateKey: key)
    }

    /// Makes a new signing key active. The previous key stays published unless `retireOld` is true,
    /// in which case tokens it signed no longer verify.
    package func rotate(retireOld: Bool) throws {
        let fresh = try SigningKeys.makeKey()
        keys.withLock { keys in
            if retireOld { keys.removeAll() }
            keys.insert(fresh, at: 0)
            if keys.count > 3 { keys.removeLast(keys.count - 3) }
        }
    }

    var activeKeyId: String { keys.withLock { $0[0].kid } }

    /// Whether a key with this id is published (active or kept after a rotation).
    func knows(kid: String) -> Bool {
        keys.withLock { $0.contains { $0.kid == kid } }
    }

    /// The JWKS document.
    func jwks(issuer: String?) -> [String: Any] {
        let current = keys.withLock { $0 }
        let entries: [[String: Any]] = current.compactMap { key in
            guard let primitives = try? key.privateKey.publicKey.getKeyPrimitives() else { return nil }
            var jwk: [String: Any] = [
                "kty": "RSA", "use": "sig", "alg": "RS256", "kid": key.kid, "x5t": key.kid,
                "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
            ]
            if let issuer { jwk["issuer"] = issuer }
            return jwk
        }
        return ["keys": entries]
    }

    /// Signs `claims` as an RS256 JWT with the active key.
    func sign(_ claims: [String: Any]) throws -> String {
        let key = keys.withLock { $0[0] }
        let header: [String: Any] = ["typ": "JWT", "alg": "RS256", "kid": key.kid, "x5t": key.kid]
        let headerPart = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let payloadPart = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let input = Data("\(headerPart).\(payloadPart)".utf8)
        let signature = try key.privateKey.signature(for: input, padding: .insecurePKCS1v1_5)
        return "\(headerPart).\(payloadPart).\(Base64URL.encode(signature.rawRepresentation))"
    }

    /// Checks an RS256 JWT's signature against the published keys and returns its claims.
    func verify(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count < 16_384, parts.count == 3,
              let headerData = Base64URL.decode(String(parts[0])),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              header["alg"] as? String == "RS256", let kid = header["kid"] as? String,
              let payloadData = Base64URL.decode(String(parts[1])),
              let claims = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any],
              let signatureData = Base64URL.decode(String(parts[2]))
        else { return nil }
        guard let key = keys.withLock({ $0.first { $0.kid == kid } }) else { return nil }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureData)
        let input = Data("\(parts[0]).\(parts[1])".utf8)
        guard key.privateKey.publicKey.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5) else { return nil }
        return claims
    }
}

/// Base64url without padding (RFC 7515 §2): the package's one implementation.
typealias Base64URL = MSALSupport.Base64URL

extension MSALSupport.Base64URL {
    /// A JSON object as one base64url segment (keys sorted).
    static func encode(json: [String: Any]) -> String {
        encode((try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data())
    }

    /// A random URL-safe string of `bytes` random bytes.
    package static func random(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }
}
