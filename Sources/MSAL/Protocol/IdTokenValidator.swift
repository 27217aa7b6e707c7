import Foundation

/// Checks an id token's claims as OpenID Connect Core §3.1.3.7 asks (issuer, audience, expiry, not-before, nonce).
///
/// Issuer: the token's `iss` must equal the issuer from the authority's OpenID metadata. Entra's metadata for the
/// multi-tenant authorities (`common`, `organizations`) holds the template
/// `https://login.microsoftonline.com/{tenantid}/v2.0`; the template is filled with the token's own `tid` before
/// comparing. The comparison is exact: v2.0 id tokens carry the issuer exactly as the metadata spells it (no
/// trailing slash for Entra, a trailing slash for B2C in both places), so no slash difference is tolerated.
enum IdTokenValidator {
    /// The clock skew tolerated for `exp` and `nbf` when none is given: five minutes.
    static let defaultClockSkew: TimeInterval = 300

    /// The placeholder Entra uses in multi-tenant issuers.
    static let tenantTemplate = "{tenantid}"

    /// Validates `token`. Throws ``MSALInternalError/internalErrorInvalidResponse`` naming the failed check.
    ///
    /// - Parameters:
    ///   - expectedIssuer: the `issuer` from the OpenID metadata, possibly with `{tenantid}`.
    ///   - clientId: the application's client id; `aud` must contain it.
    ///   - nonce: the nonce sent in the authorization request, or nil when none was sent (for example when the id
    ///     token came from a refresh, which carries no nonce). When non-nil, the token's nonce must equal it.
    ///   - now: the current time.
    ///   - clockSkew: the tolerance for `exp` and `nbf`.
    static func validate(_ token: IdToken, expectedIssuer: String, clientId: String, nonce: String?,
                         now: Date, clockSkew: TimeInterval = defaultClockSkew) throws {
        try validateIssuer(token, expectedIssuer: expectedIssuer)

        let audiences = token.aud
        guard !audiences.isEmpty else { throw invalid("aud is missing from the id token.") }
        guard audiences.contains(clientId) else {
            throw invalid("aud of the id token (\(audiences.joined(separator: ", "))) does not contain the client id \(clientId).")
        }

        guard let exp = token.exp else { throw invalid("exp is missing from the id token.") }
        guard now.addingTimeInterval(-clockSkew) < exp else {
            throw invalid("exp: the id token expired at \(Int(exp.timeIntervalSince1970)).")
        }
        if let nbf = token.nbf, nbf > now.addingTimeInterval(clockSkew) {
            throw invalid("nbf: the id token is not valid before \(Int(nbf.timeIntervalSince1970)).")
        }

        if let nonce {
            guard let received = token.nonce else { throw invalid("nonce is missing from the id token.") }
            guard received == nonce else { throw invalid("nonce of the id token does not match the nonce sent.") }
        }
    }

    /// The issuer the token must carry: `expectedIssuer` with `{tenantid}` replaced by the token's `tid`.
    static func resolvedIssuer(_ expectedIssuer: String, tid: String?) -> String? {
        guard expectedIssuer.contains(tenantTemplate) else { return expectedIssuer }
        guard let tid, !tid.isEmpty, !tid.contains("/") else { return nil }
        return expectedIssuer.replacingOccurrences(of: tenantTemplate, with: tid)
    }

    private static func validateIssuer(_ token: IdToken, expectedIssuer: String) throws {
        guard let iss = token.iss, !iss.isEmpty else { throw invalid("iss is missing from the id token.") }
        guard let expected = resolvedIssuer(expectedIssuer, tid: token.tid) else {
            throw invalid("iss: the issuer \(expectedIssuer) is a tenant template but the id token has no tid.")
        }
        guard iss == expected else {
            throw invalid("iss of the id token (\(iss)) does not match the expected issuer \(expected).")
        }
    }

    private static func invalid(_ message: String) -> MSALErrorInfo {
        .internal(.internalErrorInvalidResponse, message)
    }
}
