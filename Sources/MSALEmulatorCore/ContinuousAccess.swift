import Foundation

/// A user's revoked sign-in session: tokens issued before it are refused by the Graph stand-in.
struct SessionRevocation: Sendable {
    /// Incremented by each revocation; access tokens carry the generation they were issued in.
    var generation: Int
    /// When the session was revoked (seconds since 1970), the `nbf` a claims challenge asks for.
    var revokedAt: Int
}

/// Continuous access evaluation (CAE), as Entra and Microsoft Graph do it:
///
/// - a client declaring the `cp1` capability (`{"access_token":{"xms_cc":{"values":["cp1"]}}}` in the `claims`
///   parameter of the authorization or token request) gets access tokens with an `xms_cc` claim;
/// - `POST /_emulator/revoke?user=NAME` revokes the user's session (as a password reset or an admin's
///   "revoke sessions" does); with `refresh_tokens=true` the user's refresh tokens go too;
/// - Graph then answers a `cp1` token issued before the revocation with `401` and a claims challenge,
///   `WWW-Authenticate: Bearer realm="", authorization_uri="…", client_id="…", error="insufficient_claims",
///   claims="<base64 of {"access_token":{"nbf":{"essential":true,"value":"<revocation time>"}}}>"`, and a token
///   without `cp1` with a plain `401` `invalid_token` (the client cannot answer a challenge);
/// - any token issued after the revocation, such as the one a refresh with the challenge's claims gets, is accepted.
///
/// "Before the revocation" is judged by a session generation the emulator writes in its access tokens
/// (``sessionGenerationClaim``), not by `iat`, so that a revocation in the same second as a sign-in is exact.
extension EmulatorCore {
    /// The emulator-only access token claim holding the user's session generation at issue time.
    static let sessionGenerationClaim = "xms_emu_session"

    /// The user's current session generation (0 until a revocation).
    func sessionGeneration(userId: String) -> Int {
        sessionRevocations[userId]?.generation ?? 0
    }

    /// The client capabilities of a `claims` parameter (`access_token.xms_cc.values`); none when absent or unreadable.
    static func capabilities(claims: String?) -> [String] {
        guard let object = claimsObject(claims),
              let accessToken = object["access_token"] as? [String: Any],
              let xmsCC = accessToken["xms_cc"] as? [String: Any],
              let values = xmsCC["values"] as? [Any] else { return [] }
        return Array(values.compactMap { $0 as? String }.filter { !$0.isEmpty && $0.utf8.count <= 64 }.prefix(16))
    }

    /// Whether a request's claims only name the client's capabilities (`access_token.xms_cc`, sent with every request
    /// of a client that declares them) and so ask for no new token, as a claims challenge does.
    static func namesCapabilitiesOnly(_ claims: String?) -> Bool {
        guard claims != nil else { return true }
        guard let object = claimsObject(claims), object.keys.allSatisfy({ $0 == "access_token" }),
              let access = object["access_token"] as? [String: Any] else { return false }
        return access.keys.allSatisfy { $0 == "xms_cc" }
    }

    private static func claimsObject(_ claims: String?) -> [String: Any]? {
        guard let claims, claims.utf8.count <= 16 * 1024 else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(claims.utf8))) as? [String: Any]
    }

    /// Takes the capabilities of a token request's `claims` into `grant`, and counts an answer to a claims
    /// challenge (`access_token.nbf`) for `GET /_emulator/stats`.
    func noteClaims(_ claims: String?, into grant: inout Grant) {
        let capabilities = Self.capabilities(claims: claims)
        if !capabilities.isEmpty { grant.capabilities = capabilities }
        if let accessToken = Self.claimsObject(claims)?["access_token"] as? [String: Any], accessToken["nbf"] != nil {
            claimsChallengeAnswers += 1
        }
    }

    /// `POST /_emulator/revoke?user=NAME[&refresh_tokens=true]`: revokes the session of the user named (user name
    /// or object id). Answers `{"user": <object id>, "revoked_at": <seconds>, "refresh_tokens_revoked": <bool>}`.
    func revokeSessionControl(_ request: EmulatorRequest) -> EmulatorResponse {
        guard let name = request.parameter("user") else {
            return .json(["error": "invalid_request", "error_description": "user is required (a user name or object id)"], status: 400)
        }
        guard let target = user(named: name) ?? user(id: name.lowercased()) else {
            return .json(["error": "not_found", "error_description": "No user '\(name.prefix(128))'."], status: 404)
        }
        let revokedAt = Int(now.timeIntervalSince1970)
        let generation = sessionGeneration(userId: target.objectId) + 1
        sessionRevocations[target.objectId] = SessionRevocation(generation: generation, revokedAt: revokedAt)
        let refreshTokensToo = request.parameter("refresh_tokens") == "true"
        if refreshTokensToo { revokeRefreshTokens(userId: target.objectId) }
        return .json(["user": target.objectId, "revoked_at": revokedAt, "refresh_tokens_revoked": refreshTokensToo])
    }

    /// Why Graph refuses a user's access token issued before the user's session was revoked; nil when it is not.
    func revocationRejection(_ claims: [String: Any], userId: String) -> GraphRejection? {
        guard let revocation = sessionRevocations[userId],
              (claims[Self.sessionGenerationClaim] as? Int ?? 0) < revocation.generation else { return nil }
        let capabilities = claims["xms_cc"] as? [String] ?? []
        guard capabilities.contains("cp1") else {
            return GraphRejection(status: 401, code: "InvalidAuthenticationToken",
                                  message: "The token was issued before the user's session was revoked.",
                                  challenge: ", error=\"invalid_token\"")
        }
        let challenge = #"{"access_token":{"nbf":{"essential":true,"value":"\#(revocation.revokedAt)"}}}"#
        let encoded = Data(challenge.utf8).base64EncodedString()
        return GraphRejection(
            status: 401, code: "InvalidAuthenticationToken",
            message: "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: TokenIssuedBeforeRevocationTimestamp",
            challenge: ", error=\"insufficient_claims\", claims=\"\(encoded)\"")
    }
}
