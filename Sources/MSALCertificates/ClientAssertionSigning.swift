import Foundation
import Crypto
import _CryptoExtras
import MSALCore

extension MSALCertificateCredential {
    /// How long an assertion is valid.
    static let assertionLifetime: TimeInterval = 600

    /// A client assertion (RFC 7523 §3) for `request`: header `alg` (`PS256` when the authority supports it, else
    /// `RS256`), `typ`, `x5t#S256` (and `x5t` with `RS256`, `x5c` when asked); claims `aud` (the token endpoint),
    /// `iss` and `sub` (the client id), `jti` (new each time), `nbf`, `iat` and `exp` (ten minutes later).
    func signedAssertion(for request: MSALClientAssertionRequest) throws -> String {
        try checkValidity(at: request.now)
        let usePSS = request.supportsPSS
        var header: [String: Any] = ["alg": usePSS ? "PS256" : "RS256", "typ": "JWT", "x5t#S256": thumbprintSHA256]
        if !usePSS { header["x5t"] = thumbprintSHA1 }
        if sendCertificateChain { header["x5c"] = chain.map { Data($0).base64EncodedString() } }
        let issuedAt = Int(request.now.timeIntervalSince1970)
        let claims: [String: Any] = [
            "aud": request.tokenEndpoint.absoluteString,
            "iss": request.clientId,
            "sub": request.clientId,
            "jti": UUID().uuidString.lowercased(),
            "nbf": issuedAt,
            "iat": issuedAt,
            "exp": issuedAt + Int(Self.assertionLifetime),
        ]
        let signingInput = try Self.segment(header) + "." + Self.segment(claims)
        let signature: _RSA.Signing.RSASignature
        do {
            signature = try privateKey.signature(for: Data(signingInput.utf8),
                                                 padding: usePSS ? .PSS : .insecurePKCS1v1_5)
        } catch {
            throw MSALErrorInfo.invalidParameter("The certificate credential could not sign a client assertion.")
        }
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    private static func segment(_ object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Base64URL.encode(data)
    }
}
