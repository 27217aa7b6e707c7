import Foundation

/// Checks an id token's claims as OpenID Connect Core §3.1.3.7 asks (issuer, audience, authorized party, expiry,
/// not-before, issued-at, nonce), and that a token names the expected user (§12.2, `client_info`).
///
/// Issuer: the token's `iss` must equal the issuer from the authority's OpenID metadata. Entra's metadata for the
/// multi-tenant authorities (`common`, `organizations`) holds the template
/// `https://login.microsoftonline.com/{tenantid}/v2.0`; the template is filled with the token's own `tid` before
/// comparing. The comparison is exact: v2.0 id tokens carry the issuer exactly as the metadata spells it (no
/// trailing slash for Entra, a trailing slash for B2C in both places), so no slash difference is tolerated.
///
/// Time: `exp`, `nbf` and `iat` are judged against the identity provider's own clock when the token response
/// carried an HTTP `Date` (see ``IdTokenTime``), so that a client whose clock is hours off still signs in while a
/// token expired by the server's own clock is still refused.
///
/// Messages name the failed check, never the claim values (they come from the server and may be hostile).
enum IdTokenValidator {
    /// The clock skew tolerated for `exp`, `nbf` and `iat` when none is given: five minutes.
    static let defaultClockSkew: TimeInterval = 300

    /// The placeholder Entra uses in multi-tenant issuers.
    static let tenantTemplate = "{tenantid}"

    /// Validates `token`. Throws ``MSALInternalError/internalErrorInvalidResponse`` naming the failed check.
    ///
    /// - Parameters:
    ///   - expectedIssuer: the `issuer` from the OpenID metadata, possibly with `{tenantid}`.
    ///   - clientId: the application's client id: the only audience trusted, and the authorized party.
    ///   - nonce: the nonce sent in the authorization request, or nil when none was sent (for example when the id
    ///     token came from a refresh, which carries no nonce). When non-nil, the token's nonce must equal it.
    ///   - now: the reference time (the identity provider's clock when known, see ``IdTokenTime``).
    ///   - clockSkew: the tolerance for `exp`, `nbf` and `iat`.
    static func validate(_ token: IdToken, expectedIssuer: String, clientId: String, nonce: String?,
                         now: Date, clockSkew: TimeInterval = defaultClockSkew) throws {
        try validateIssuer(token, expectedIssuer: expectedIssuer)

        // §3.1.3.7 items 3-5: the client must be an audience, no untrusted audience may be listed, and with an
        // azp claim (required by item 4 when there are several audiences) it must be the client.
        let audiences = token.aud
        guard !audiences.isEmpty else { throw invalid("aud is missing from the id token.") }
        guard audiences.contains(clientId) else {
            throw invalid("aud: the id token was not issued to this application.")
        }
        guard audiences.allSatisfy({ $0 == clientId }) else {
            throw invalid("aud: the id token also names audiences this application does not trust.")
        }
        if let azp = token.claims["azp"] {
            guard azp.stringValue == clientId else {
                throw invalid("azp: the id token's authorized party is not this application.")
            }
        }

        guard let exp = token.exp else { throw invalid("exp is missing from the id token.") }
        guard now.addingTimeInterval(-clockSkew) < exp else {
            throw invalid("exp: the id token has expired by the identity provider's clock.")
        }
        if let nbf = token.nbf, nbf > now.addingTimeInterval(clockSkew) {
            throw invalid("nbf: the id token is not valid yet by the identity provider's clock.")
        }
        if let iat = token.iat, iat > now.addingTimeInterval(clockSkew) {
            throw invalid("iat: the id token claims to be issued in the future by the identity provider's clock.")
        }

        if let nonce {
            guard let received = token.nonce else { throw invalid("nonce is missing from the id token.") }
            guard received == nonce else { throw invalid("nonce of the id token does not match the nonce sent.") }
        }
    }

    /// Checks that `token` names the user `clientInfo` names: in the user's home tenant (`tid` equal to `utid`),
    /// the token's `oid` must be the `uid` (for B2C, `uid` is `oid` followed by `-<policy>`).
    static func validateSubject(_ token: IdToken, clientInfo: ClientInfo) throws {
        guard let oid = token.oid?.lowercased(), let tid = token.tid?.lowercased(),
              tid == clientInfo.utid.lowercased() else { return }
        let uid = clientInfo.uid.lowercased()
        guard uid == oid || uid.hasPrefix(oid + "-") else {
            throw mismatchedUser("oid: the id token names another user than the client_info of the response.")
        }
    }

    /// OpenID Connect Core §12.2: an id token from a refresh must have the `iss` and `sub` (and `oid`) of the id
    /// token the account already holds for that tenant.
    static func validateSameSubject(previous: IdToken, current: IdToken) throws {
        guard previous.iss == current.iss else {
            throw mismatchedUser("iss: the refreshed id token comes from another issuer than the account's.")
        }
        if let before = previous.sub, before != current.sub {
            throw mismatchedUser("sub: the refreshed id token names another user than the account's.")
        }
        if let before = previous.oid, before != current.oid {
            throw mismatchedUser("oid: the refreshed id token names another user than the account's.")
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
            throw invalid("iss: the authority's issuer is a tenant template but the id token has no usable tid.")
        }
        guard iss == expected else {
            throw invalid("iss: the id token's issuer is not the authority's issuer.")
        }
    }

    private static func invalid(_ message: String) -> MSALErrorInfo {
        .internal(.internalErrorInvalidResponse, message)
    }

    private static func mismatchedUser(_ message: String) -> MSALErrorInfo {
        .internal(.internalErrorMismatchedUser, message)
    }
}

/// The time an id token is judged at: the identity provider's clock from the token response's HTTP `Date`
/// header when there is one (the local clock may be hours off, as on a suspended WSL machine), else the local
/// clock with the usual five-minute skew.
struct IdTokenTime: Sendable {
    /// The local clock's reading when the response was handled.
    var localNow: Date
    /// The identity provider's clock, from `Date`, if any.
    var serverDate: Date?

    /// How far the local clock is from the identity provider's before it is worth a warning.
    static let reportedSkew: TimeInterval = 300

    /// The reference time for the checks.
    var reference: Date { serverDate ?? localNow }

    /// The local clock's offset from the identity provider's (positive: local is ahead), when known and larger
    /// than ``reportedSkew``.
    var notableSkew: TimeInterval? {
        guard let serverDate else { return nil }
        let skew = localNow.timeIntervalSince(serverDate)
        return abs(skew) > Self.reportedSkew ? skew : nil
    }
}
