import _CryptoExtras
import Crypto
import Foundation
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Builds JWTs for tests, optionally signed (RS256) with a key made at run time.
enum TestJWT {
    static func segment(_ object: [String: Any]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Base64URL.encode(data)
    }

    /// An unsigned (`header.payload.`) or RS256-signed token.
    static func make(claims: [String: Any], header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": "k1"],
                     signer: _RSA.Signing.PrivateKey? = nil) -> String {
        let input = segment(header) + "." + segment(claims)
        guard let signer else { return input + "." }
        let signature = try! signer.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// A JWKS document holding the public halves of `keys`.
    static func jwks(_ keys: [(kid: String?, key: _RSA.Signing.PrivateKey)], extra: [[String: Any]] = []) -> Data {
        var entries: [[String: Any]] = extra
        for (kid, key) in keys {
            let primitives = try! key.publicKey.getKeyPrimitives()
            var jwk: [String: Any] = ["kty": "RSA", "use": "sig",
                                      "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)]
            if let kid { jwk["kid"] = kid }
            entries.append(jwk)
        }
        return try! JSONSerialization.data(withJSONObject: ["keys": entries])
    }

    /// Claims of a valid Entra id token issued at `now`.
    static func entraClaims(now: Date, tid: String = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
                            clientId: String = "client-1", nonce: String? = "n-1") -> [String: Any] {
        var claims: [String: Any] = [
            "iss": "https://login.microsoftonline.com/\(tid)/v2.0",
            "aud": clientId,
            "tid": tid,
            "oid": "9f4880d8-80ba-4c40-97bc-f7a23c703084",
            "sub": "subject-1",
            "preferred_username": "user@contoso.com",
            "name": "User One",
            "iat": Int(now.timeIntervalSince1970) - 10,
            "nbf": Int(now.timeIntervalSince1970) - 10,
            "exp": Int(now.timeIntervalSince1970) + 3600,
        ]
        if let nonce { claims["nonce"] = nonce }
        return claims
    }
}
