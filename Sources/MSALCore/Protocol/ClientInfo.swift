import Foundation

/// The `client_info` the server returns when a request carries `client_info=1`: base64url JSON with the user's
/// object id in the home tenant (`uid`) and the home tenant id (`utid`).
///
/// The home account id is `"<uid>.<utid>"` exactly as the server returned the parts. MSAL for iOS/macOS trims and
/// lower-cases them, while MSAL Python (and MSAL.NET) keep them as returned; this library follows MSAL Python so
/// that cache entries written by either library have the same keys. The server sends lower-case GUIDs in
/// practice, so the two agree on real tokens.
struct ClientInfo: Sendable, Hashable {
    /// The user's object id in the home tenant (for B2C: `<oid>-<policy>`).
    var uid: String
    /// The home tenant id.
    var utid: String
    /// Every member of the decoded JSON, including ones MSAL does not use (such as `xms_tdbr`).
    var claims: [String: JSONValue]
    /// The base64url text as received.
    var encoded: String

    /// `"<uid>.<utid>"`, the account's key in the token cache.
    var homeAccountId: String { "\(uid).\(utid)" }

    /// Decodes `client_info` as the server returned it.
    /// Throws ``MSALInternalError/internalErrorInvalidResponse`` when it is not base64url JSON with `uid` and `utid`.
    init(encoded: String) throws {
        guard let data = Base64URL.decode(encoded.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "client_info is not valid base64url.")
        }
        guard let object = JSONValue.parseObject(data) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "client_info is not a JSON object.")
        }
        guard let uid = object["uid"]?.stringValue, !uid.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "client_info has no uid.")
        }
        guard let utid = object["utid"]?.stringValue, !utid.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "client_info has no utid.")
        }
        self.uid = uid
        self.utid = utid
        self.claims = object
        self.encoded = encoded
    }
}
