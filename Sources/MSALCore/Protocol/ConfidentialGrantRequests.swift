import Foundation

/// The client credentials grant (RFC 6749 §4.4) as MSAL sends it. Pure: it only builds the form body.
struct ClientCredentialsGrantRequest: Sendable {
    static let grantType = "client_credentials"

    var clientId: String
    var scopes: [String]
    var claims: String?
    var extraParameters: [String: String]

    /// The form body: `client_id`, `grant_type`, `scope`, `claims`, then the extra parameters. No `client_info`: an
    /// app token has no user. The client authentication is added when it is sent.
    var formParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("client_id", clientId),
            ("grant_type", Self.grantType),
            ("scope", scopes.joined(separator: " ")),
        ]
        if let claims { pairs.append(("claims", claims)) }
        ExtraGrantParameters.append(extraParameters, to: &pairs)
        return pairs
    }
}

/// The on-behalf-of grant: the JWT bearer grant (RFC 7523 §2.1) with `requested_token_use=on_behalf_of`.
struct OnBehalfOfGrantRequest: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    var clientId: String
    var assertion: String
    var scopes: [String]
    var claims: String?

    /// The form body: `client_id`, `grant_type`, `assertion`, `requested_token_use`, `client_info`, `scope` (with
    /// `openid profile offline_access`), `claims`. The client authentication is added when it is sent.
    var formParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("client_id", clientId),
            ("grant_type", Self.grantType),
            ("assertion", assertion),
            ("requested_token_use", "on_behalf_of"),
            ("client_info", "1"),
            ("scope", Scopes.requestParameter(scopes)),
        ]
        if let claims { pairs.append(("claims", claims)) }
        return pairs
    }
}
