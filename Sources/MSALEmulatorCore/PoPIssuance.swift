import Foundation
import MSALSupport

/// How the emulator's token endpoint answers a proof-of-possession request.
public enum EmulatedPoPBehaviour: String, Codable, Sendable, CaseIterable {
    /// As Entra: the token bound to the `req_cnf` key (`cnf.kid`), `token_type` `pop`; a `req_cnf` that is not
    /// base64url JSON with a `kid` is an `invalid_request`.
    case entra
    /// As Entra's service does for a raw (not base64url) `req_cnf`: HTTP 500 (MSAL for Python's note, PR #887).
    case serverErrorForRawRequestConfirmation
    /// Fault: answers `token_type` `Bearer` and an unbound token although PoP was asked for (a client must refuse).
    case answersBearer
    /// Fault: answers `token_type` `pop` with a token that has no `cnf` (a resource must refuse it).
    case popWithoutConfirmation
}

extension EmulatorCore {
    /// The key id a token request asks its token to be bound to (`token_type=pop` with `req_cnf`, base64url of
    /// `{"kid":"…"}`, other members such as `xms_ksl` ignored); nil for a bearer request.
    func requestedPoPKeyId(_ request: EmulatorRequest) throws(EntraError) -> String? {
        try requestedPoPKeyId(tokenType: request.form["token_type"], confirmation: request.form["req_cnf"])
    }

    /// ``requestedPoPKeyId(_:)`` for the `token_type` and `req_cnf` a broker passes on (Authenticator's query, the SSO
    /// extension's items: `Pop` as MSAL for iOS/macOS spells it).
    func requestedPoPKeyId(tokenType: String?, confirmation: String?) throws(EntraError) -> String? {
        let tokenType = tokenType?.lowercased()
        guard tokenType == "pop" else {
            if let tokenType, tokenType != "bearer" {
                throw EntraError(error: "invalid_request", code: 900144, message: "The token_type '\(tokenType.prefix(32))' is not supported.")
            }
            return nil
        }
        guard let confirmation, !confirmation.isEmpty else { throw EntraError.missing("req_cnf") }
        guard confirmation.utf8.count <= 4096, let data = Base64URL.decode(confirmation),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let kid = object["kid"] as? String, !kid.isEmpty, kid.utf8.count <= 256 else {
            if config.proofOfPossession == .serverErrorForRawRequestConfirmation {
                throw EntraError(error: "server_error", code: 90014, message: "The request could not be processed.", status: 500)
            }
            throw EntraError(error: "invalid_request", code: 90014,
                             message: "The request's req_cnf is not a base64url-encoded JSON object with a kid.")
        }
        return kid
    }

    /// Binds `body`'s access token to `keyId` as the configured behaviour says: `cnf` in the token, `token_type` pop.
    func bind(_ claims: inout [String: Any], body: inout [String: Any], keyId: String?) {
        guard let keyId else { return }
        switch config.proofOfPossession {
        case .entra, .serverErrorForRawRequestConfirmation:
            claims["cnf"] = ["kid": keyId]
            body["token_type"] = "pop"
        case .answersBearer:
            body["token_type"] = "Bearer"
        case .popWithoutConfirmation:
            body["token_type"] = "pop"
        }
    }
}
