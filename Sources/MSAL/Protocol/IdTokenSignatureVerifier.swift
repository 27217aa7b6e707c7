import _CryptoExtras
import Crypto
import Foundation

/// Verifies an id token's RS256 signature against the keys of a JSON Web Key Set (`jwks_uri`).
///
/// Only `RS256` is accepted: `none` and every other algorithm are rejected. The key is chosen by the token's
/// `kid`; a token without `kid` is accepted only when the set holds exactly one RSA key.
struct IdTokenSignatureVerifier: Sendable {
    /// The RSA keys of the set, by `kid` (keys without `kid` are stored under "").
    private let keys: [(kid: String, key: _RSA.Signing.PublicKey)]

    /// Parses a JWKS document (`{"keys":[{"kty":"RSA","kid":...,"n":...,"e":...}]}`). Keys that are not RSA
    /// signing keys, or that do not parse, are skipped. Throws ``MSALInternalError/internalErrorInvalidResponse``
    /// when the document is not a key set or holds no usable RSA key.
    init(jwks: Data) throws {
        guard let object = JSONValue.parseObject(jwks), let entries = object["keys"]?.arrayValue else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The JWKS document has no keys array.")
        }
        var keys: [(kid: String, key: _RSA.Signing.PublicKey)] = []
        for entry in entries {
            guard let jwk = entry.objectValue, jwk["kty"]?.stringValue == "RSA" else { continue }
            if let use = jwk["use"]?.stringValue, use != "sig" { continue }
            if let alg = jwk["alg"]?.stringValue, alg != "RS256" { continue }
            guard let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                  let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                  let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { continue }
            keys.append((jwk["kid"]?.stringValue ?? "", key))
        }
        guard !keys.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The JWKS document holds no usable RSA key.")
        }
        self.keys = keys
    }

    /// Verifies the signature of `token`. Throws ``MSALInternalError/internalErrorInvalidResponse`` when the
    /// algorithm is not RS256, no key matches, or the signature does not verify.
    func verify(_ token: IdToken) throws {
        guard let alg = token.algorithm else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The id token's header has no alg.")
        }
        guard alg == "RS256" else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The id token's signature algorithm \(alg) is not accepted (only RS256).")
        }
        let segments = token.raw.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = Base64URL.decode(segments[2]), !signature.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The id token is not signed.")
        }
        let key: _RSA.Signing.PublicKey
        if let kid = token.keyId {
            guard let match = keys.first(where: { $0.kid == kid }) else {
                throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "No key in the JWKS has the id token's kid \(kid).")
            }
            key = match.key
        } else {
            guard keys.count == 1 else {
                throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                             "The id token has no kid and the JWKS holds several keys.")
            }
            key = keys[0].key
        }
        let signingInput = Data("\(segments[0]).\(segments[1])".utf8)
        let valid = key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                         for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
        guard valid else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The id token's signature does not verify.")
        }
    }
}
