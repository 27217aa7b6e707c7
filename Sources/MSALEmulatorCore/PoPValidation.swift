import Crypto
import _CryptoExtras
import Foundation
import MSALSupport

/// A resource's check of `Authorization: PoP <signed request>`, by the rules of Microsoft's validator
/// (`Microsoft.IdentityModel.Protocols.SignedHttpRequest`, `SignedHttpRequestHandler.cs`, as summarized in
/// `pop.md` §1.3): the inner `at` is then checked as a bearer token by the caller.
///
/// 1. The signed request is a JWS; its `at` names a token whose `cnf.kid` is the RFC 7638 thumbprint of the signed
///    request's `cnf.jwk` (an RSA key: `e`, `kty`, `n`), and the signature verifies with that key (RS256 or PS256;
///    `typ` is not required).
/// 2. `ts` is present and at most 5 minutes old (and not more than 5 minutes ahead).
/// 3. `m`, when present, is the request's method (case-insensitive); `u` is the request's host, with or without
///    its port (case-insensitive); `p`, when present, is the request's path, compared without leading and trailing
///    slashes, case-sensitively.
enum SignedRequestValidation {
    static let lifetime: TimeInterval = 300

    struct Failure: Error {
        var message: String
    }

    /// The signed request's `at` and its claims' `cnf.kid` once every rule holds; `accessTokenClaims` reads the
    /// inner token (the caller's bearer check, which verifies its signature).
    static func validate(_ signedRequest: String, method: String, host: String, path: String, now: Date,
                         accessTokenClaims: (String) -> [String: Any]?) throws(Failure) -> (accessToken: String, claims: [String: Any], nonce: String?) {
        let jwt: ParsedJWT
        do { jwt = try ParsedJWT(signedRequest) } catch { throw Failure(message: "The signed request is not a JWS.") }
        guard let accessToken = jwt.claims["at"] as? String, !accessToken.isEmpty else {
            throw Failure(message: "The signed request has no at.")
        }
        guard let claims = accessTokenClaims(accessToken) else {
            throw Failure(message: "The signed request's access token is not valid.")
        }
        guard let confirmation = claims["cnf"] as? [String: Any], let boundKid = confirmation["kid"] as? String else {
            throw Failure(message: "The access token is not bound to a key (no cnf).")
        }
        guard let cnf = jwt.claims["cnf"] as? [String: Any], let jwk = cnf["jwk"] as? [String: Any],
              jwk["kty"] as? String == "RSA", let e = jwk["e"] as? String, let n = jwk["n"] as? String,
              let exponent = Base64URL.decode(e), let modulus = Base64URL.decode(n), modulus.count >= 256, modulus.count <= 1024 else {
            throw Failure(message: "The signed request has no RSA cnf.jwk of 2048 bits or more.")
        }
        let thumbprint = Base64URL.encode(Data(SHA256.hash(data: Data("{\"e\":\"\(e)\",\"kty\":\"RSA\",\"n\":\"\(n)\"}".utf8))))
        guard thumbprint == boundKid else {
            throw Failure(message: "The signed request's key is not the one the access token is bound to.")
        }
        guard let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent) else {
            throw Failure(message: "The signed request's key is not a usable RSA key.")
        }
        let padding: _RSA.Signing.Padding
        switch jwt.header["alg"] as? String {
        case "RS256": padding = .insecurePKCS1v1_5
        case "PS256": padding = .PSS
        default: throw Failure(message: "The signed request's algorithm is not RS256 or PS256.")
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        guard key.isValidSignature(signature, for: SHA256.hash(data: jwt.signingInput), padding: padding) else {
            throw Failure(message: "The signed request's signature is not valid.")
        }
        guard let ts = (jwt.claims["ts"] as? NSNumber)?.doubleValue, ts.isFinite else {
            throw Failure(message: "The signed request has no ts.")
        }
        let age = now.timeIntervalSince1970 - ts
        guard age <= lifetime, age >= -lifetime else { throw Failure(message: "The signed request has expired (ts).") }
        if let m = jwt.claims["m"] as? String,
           m.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(method) != .orderedSame {
            throw Failure(message: "The signed request's m is not the request's method.")
        }
        guard let u = (jwt.claims["u"] as? String)?.lowercased() else { throw Failure(message: "The signed request has no u.") }
        let hostOnly = host.lowercased().split(separator: ":").first.map(String.init) ?? host.lowercased()
        guard u == host.lowercased() || u == hostOnly else {
            throw Failure(message: "The signed request's u is not the request's host.")
        }
        if let p = jwt.claims["p"] as? String {
            let trim = CharacterSet(charactersIn: "/")
            guard p.trimmingCharacters(in: trim) == path.trimmingCharacters(in: trim) else {
                throw Failure(message: "The signed request's p is not the request's path.")
            }
        }
        return (accessToken, claims, jwt.claims["nonce"] as? String)
    }
}
