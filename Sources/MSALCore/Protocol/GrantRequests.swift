import Foundation

/// Extra parameters the application added (its own merged with the request's, the request's winning), appended in
/// key order after the protocol's parameters; a name the protocol already uses is never overridden or repeated.
enum ExtraGrantParameters {
    static func append(_ extra: [String: String], to pairs: inout [(String, String)]) {
        let reserved = Set(pairs.map(\.0))
        for key in extra.keys.sorted() where !reserved.contains(key) {
            pairs.append((key, extra[key] ?? ""))
        }
    }
}

/// The refresh token grant (RFC 6749 §6) as MSAL sends it. Pure: it only builds the form body.
struct RefreshTokenGrantRequest: Sendable {
    static let grantType = "refresh_token"

    var clientId: String
    var refreshToken: String
    var scopes: [String]
    /// The `claims` parameter (JSON), if any: see ``claims(capabilities:requested:)``.
    var claims: String?
    var extraParameters: [String: String]

    /// The form body: `client_id`, `grant_type`, `client_info`, `refresh_token`, `scope`, `claims`, then the
    /// extra parameters.
    var formParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("client_id", clientId),
            ("grant_type", Self.grantType),
            ("client_info", "1"),
            ("refresh_token", refreshToken),
            ("scope", Scopes.requestParameter(scopes)),
        ]
        if let claims { pairs.append(("claims", claims)) }
        ExtraGrantParameters.append(extraParameters, to: &pairs)
        return pairs
    }

    /// The `claims` of a refresh: the client capabilities merged with the request's claims JSON (the request's
    /// claims win per claim; unparsable JSON is sent as given); nil when there are neither.
    static func claims(capabilities: [String]?, requested: String?) -> String? {
        guard let fromCapabilities = ClaimsParameter.build(capabilities: capabilities, claimsRequest: nil) else {
            return requested
        }
        guard let requested else { return fromCapabilities }
        return mergeClaims(fromCapabilities, requested)
    }

    /// Merges two `claims` JSON objects (the second wins per claim).
    private static func mergeClaims(_ first: String, _ second: String) -> String {
        guard let a = JSONValue.parseObject(Data(first.utf8)), let b = JSONValue.parseObject(Data(second.utf8)) else {
            return second
        }
        var merged = a
        for (target, value) in b {
            if case .object(let inner)? = merged[target], case .object(let extra) = value {
                merged[target] = .object(inner.merging(extra, uniquingKeysWith: { $1 }))
            } else {
                merged[target] = value
            }
        }
        return JSONText.serialize(.object(merged)) ?? second
    }
}

/// The device authorization request (RFC 8628 §3.1) that starts the device code flow.
struct DeviceAuthorizationRequest: Sendable {
    var clientId: String
    var scopes: [String]
    var claims: String?
    var extraParameters: [String: String]

    /// The form body: `client_id`, `scope`, `claims`, then the extra parameters.
    var formParameters: [(String, String)] {
        var pairs: [(String, String)] = [("client_id", clientId), ("scope", Scopes.requestParameter(scopes))]
        if let claims { pairs.append(("claims", claims)) }
        ExtraGrantParameters.append(extraParameters, to: &pairs)
        return pairs
    }
}

/// One poll of the device code grant (RFC 8628 §3.4, `urn:ietf:params:oauth:grant-type:device_code`).
struct DeviceCodeGrantRequest: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    var clientId: String
    var deviceCode: String
    var claims: String?
    var extraParameters: [String: String]
    /// `token_type` and `req_cnf` of a proof-of-possession request.
    var boundParameters: [(String, String)] = []

    /// The form body: `client_id`, `grant_type`, `client_info`, `device_code`, `code` (the same code, as Entra
    /// also reads it), `claims`, a proof-of-possession request's parameters, then the extra parameters. No `scope`:
    /// the device code carries it.
    var formParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("client_id", clientId),
            ("grant_type", Self.grantType),
            ("client_info", "1"),
            ("device_code", deviceCode),
            ("code", deviceCode),
        ]
        if let claims { pairs.append(("claims", claims)) }
        pairs += boundParameters
        ExtraGrantParameters.append(extraParameters, to: &pairs)
        return pairs
    }
}

/// The redemption of an authorization code with PKCE (RFC 6749 §4.1.3, RFC 7636 §4.5).
struct AuthorizationCodeGrantRequest: Sendable {
    static let grantType = "authorization_code"

    var clientId: String
    var code: String
    var codeVerifier: String
    /// The redirect URI the code was sent to.
    var redirectUri: String
    var scopes: [String]
    var claims: String?

    /// The form body: `client_id`, `grant_type`, `client_info`, `code_verifier`, `code`, `redirect_uri`, `scope`,
    /// `claims`. Extra parameters go to the authorization URL only.
    var formParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("client_id", clientId),
            ("grant_type", Self.grantType),
            ("client_info", "1"),
            ("code_verifier", codeVerifier),
            ("code", code),
            ("redirect_uri", redirectUri),
            ("scope", Scopes.requestParameter(scopes)),
        ]
        if let claims { pairs.append(("claims", claims)) }
        return pairs
    }
}
