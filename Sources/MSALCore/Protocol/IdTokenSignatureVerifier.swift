import _CryptoExtras
import Crypto
import Foundation

/// Verifies an id token's signature against the keys of a JSON Web Key Set (`jwks_uri`).
///
/// `RS256` is always accepted; `ES256` (P-256) only when the caller allows it (the authority's metadata lists it
/// in `id_token_signing_alg_values_supported`). `none`, HMAC and every other algorithm are rejected. The key is
/// chosen by the token's `kid`; a token without `kid` is accepted only when the set holds exactly one key of the
/// token's type.
struct IdTokenSignatureVerifier: Sendable {
    enum PublicKey: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)

        var algorithm: String {
            switch self {
            case .rsa: "RS256"
            case .p256: "ES256"
            }
        }
    }

    /// The usable keys of the set, in document order (keys without `kid` have "").
    private let keys: [(kid: String, key: PublicKey)]

    /// Parses a JWKS document (`{"keys":[{"kty":"RSA","kid":...,"n":...,"e":...}, {"kty":"EC","crv":"P-256",...}]}`).
    /// Keys that are not RSA or P-256 signing keys, or that do not parse, are skipped. Throws
    /// ``MSALInternalError/internalErrorInvalidResponse`` when the document is not a key set or holds no usable key.
    init(jwks: Data) throws {
        guard let object = JSONValue.parseObject(jwks), let entries = object["keys"]?.arrayValue else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The JWKS document has no keys array.")
        }
        var keys: [(kid: String, key: PublicKey)] = []
        for entry in entries.prefix(256) {
            guard let jwk = entry.objectValue, let key = Self.key(jwk) else { continue }
            keys.append((jwk["kid"]?.stringValue ?? "", key))
        }
        guard !keys.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The JWKS document holds no usable signing key.")
        }
        self.keys = keys
    }

    private static func key(_ jwk: [String: JSONValue]) -> PublicKey? {
        if let use = jwk["use"]?.stringValue, use != "sig" { return nil }
        switch jwk["kty"]?.stringValue {
        case "RSA":
            if let alg = jwk["alg"]?.stringValue, alg != "RS256" { return nil }
            guard let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                  let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                  let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048 else { return nil }
            return .rsa(key)
        case "EC":
            if let alg = jwk["alg"]?.stringValue, alg != "ES256" { return nil }
            guard jwk["crv"]?.stringValue == "P-256",
                  let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), x.count == 32,
                  let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode), y.count == 32,
                  let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else { return nil }
            return .p256(key)
        default:
            return nil
        }
    }

    /// Whether the set holds a key with the token's `kid` (or, for a token without `kid`, any key).
    func hasKey(for token: IdToken) -> Bool {
        guard let kid = token.keyId else { return true }
        return keys.contains { $0.kid == kid }
    }

    /// Verifies the signature of `token`. Throws ``MSALInternalError/internalErrorInvalidResponse`` when the
    /// algorithm is not accepted, no key matches, or the signature does not verify.
    ///
    /// - Parameter algorithms: the accepted algorithms (`RS256`, and `ES256` when the authority advertises it).
    func verify(_ token: IdToken, algorithms: Set<String> = ["RS256"]) throws {
        guard let alg = token.algorithm else { throw Self.refused("The id token's header has no alg.") }
        guard algorithms.contains(alg), alg == "RS256" || alg == "ES256" else {
            throw Self.refused("The id token's signature algorithm \(Self.printable(alg)) is not accepted (RS256"
                               + (algorithms.contains("ES256") ? " or ES256)." : ")."))
        }
        let segments = token.raw.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = Base64URL.decode(segments[2]), !signature.isEmpty else {
            throw Self.refused("The id token is not signed.")
        }
        let candidates = keys.filter { $0.key.algorithm == alg }
        let key: PublicKey
        if let kid = token.keyId {
            guard let match = candidates.first(where: { $0.kid == kid }) else {
                throw Self.refused("No \(alg) key in the authority's key set has the id token's kid.")
            }
            key = match.key
        } else {
            guard candidates.count == 1 else {
                throw Self.refused("The id token has no kid and the authority's key set holds several keys.")
            }
            key = candidates[0].key
        }
        let signingInput = Data("\(segments[0]).\(segments[1])".utf8)
        let valid: Bool
        switch key {
        case .rsa(let rsa):
            valid = rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                         for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
        case .p256(let ec):
            valid = (try? P256.Signing.ECDSASignature(rawRepresentation: signature))
                .map { ec.isValidSignature($0, for: SHA256.hash(data: signingInput)) } ?? false
        }
        guard valid else { throw Self.refused("The id token's signature does not verify.") }
    }

    private static func refused(_ message: String) -> MSALErrorInfo {
        .internal(.internalErrorInvalidResponse, message)
    }

    /// A header value fit for a message: at most 16 printable ASCII characters.
    static func printable(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(16).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
        return "\"" + String(kept) + "\""
    }
}
