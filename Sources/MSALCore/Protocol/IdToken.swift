import Foundation

/// A decoded OpenID Connect id token (a JWS in compact form: `header.payload.signature`).
///
/// Decoding does not verify anything; see ``IdTokenValidator`` for the claim checks and
/// ``IdTokenSignatureVerifier`` for the signature. Error messages never include the token or its claims' values.
struct IdToken: Sendable, Hashable {
    /// The token as received.
    var raw: String
    /// The JOSE header (`alg`, `kid`, `typ`, ...).
    var header: [String: JSONValue]
    /// The payload's claims.
    var claims: [String: JSONValue]

    /// Decodes `raw`. Accepts two segments (`header.payload`, an unsecured token as some test servers send) or
    /// three. Throws ``MSALInternalError/internalErrorInvalidResponse`` for anything that is not a JWT with a JSON
    /// object as its payload.
    init(raw: String) throws {
        let segments = raw.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 2 || segments.count == 3 else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The id token is not a JWT (it has \(segments.count) segments).")
        }
        guard let headerData = Base64URL.decode(segments[0]), let header = JSONValue.parseObject(headerData) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The id token's header is not base64url JSON.")
        }
        guard let payloadData = Base64URL.decode(segments[1]) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The id token's payload is not valid base64url.")
        }
        guard let claims = JSONValue.parseObject(payloadData) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The id token's payload is not a JSON object.")
        }
        self.raw = raw
        self.header = header
        self.claims = claims
    }

    /// The string value of a claim.
    func string(_ name: String) -> String? { claims[name]?.stringValue }

    /// A NumericDate claim (seconds since 1970) as a date.
    func date(_ name: String) -> Date? { claims[name]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }

    /// Issuer.
    var iss: String? { string("iss") }
    /// Audiences: `aud` may be one string or an array of strings.
    var aud: [String] {
        switch claims["aud"] {
        case .string(let single)?: return [single]
        case .array(let many)?: return many.compactMap(\.stringValue)
        default: return []
        }
    }
    /// Expiry.
    var exp: Date? { date("exp") }
    /// Not before.
    var nbf: Date? { date("nbf") }
    /// Issued at.
    var iat: Date? { date("iat") }
    /// The nonce echoed from the authorization request.
    var nonce: String? { string("nonce") }
    /// The tenant that issued the token.
    var tid: String? { string("tid") }
    /// The user's object id in the issuing tenant.
    var oid: String? { string("oid") }
    /// The subject (pairwise per application).
    var sub: String? { string("sub") }
    /// The user name to show: `preferred_username`, else `upn`, else `email`.
    var preferredUsername: String? { string("preferred_username") ?? string("upn") ?? string("email") }
    /// The user's display name.
    var name: String? { string("name") }
    /// B2C: the user flow (policy) that issued the token, from `tfp` or `acr`.
    var policy: String? { string("tfp") ?? string("acr") }
    /// The local account id MSAL stores: `oid`, else `sub`.
    var localAccountId: String? { oid ?? sub }
    /// The JOSE `alg` header.
    var algorithm: String? { header["alg"]?.stringValue }
    /// The JOSE `kid` header.
    var keyId: String? { header["kid"]?.stringValue }
}
