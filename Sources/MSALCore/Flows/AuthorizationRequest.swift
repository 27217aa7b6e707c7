import Foundation

/// One authorization-code request with PKCE (RFC 6749 §4.1, RFC 7636), and the checks of its response.
/// Pure: building the URL and reading the response do no I/O.
struct AuthorizationRequest: Sendable {
    var authorizationEndpoint: URL
    var clientId: String
    /// The application's scopes plus extra scopes to consent (reserved scopes are added when building).
    var scopes: [String]
    var state: String
    var nonce: String
    var codeVerifier: String
    var codeChallenge: String
    var prompt: MSALPromptType
    var loginHint: String?
    var domainHint: String?
    /// The `claims` parameter (JSON), if any.
    var claims: String?
    /// `response_mode`: nil (Entra's default, `query`), `query`, `fragment` or `form_post`.
    var responseMode: String?
    var extraQueryParameters: [String: String]
    var correlationId: UUID
    var instanceAware: Bool

    /// The full authorization URL for `redirectUri`.
    func url(redirectUri: String) -> URL {
        var pairs: [(String, String)] = [
            ("client_id", clientId),
            ("response_type", "code"),
            ("redirect_uri", redirectUri),
            ("scope", Scopes.requestParameter(scopes)),
            ("state", state),
        ]
        if let responseMode { pairs.append(("response_mode", responseMode)) }
        pairs += [
            ("code_challenge", codeChallenge),
            ("code_challenge_method", "S256"),
            ("nonce", nonce),
            ("client_info", "1"),
        ]
        if let loginHint, !loginHint.isEmpty { pairs.append(("login_hint", loginHint)) }
        if let prompt = prompt.parameterValue { pairs.append(("prompt", prompt)) }
        if let domainHint, !domainHint.isEmpty { pairs.append(("domain_hint", domainHint)) }
        if let claims { pairs.append(("claims", claims)) }
        if instanceAware { pairs.append(("instance_aware", "true")) }
        pairs += ClientHeaders.authorizeQueryPairs
        pairs.append(("client-request-id", correlationId.uuidString))
        let reserved: Set<String> = Set(pairs.map(\.0))
        for key in extraQueryParameters.keys.sorted() where !reserved.contains(key) {
            pairs.append((key, extraQueryParameters[key] ?? ""))
        }
        return FormEncoding.url(authorizationEndpoint, adding: pairs)
    }

    /// The outcome of reading an authorization response.
    enum Outcome: Equatable, Sendable {
        case code(String, clientInfo: String?)
    }

    /// Checks the response: `state` first (RFC 6749 §10.12, on errors too: an error redirect without this
    /// request's state may come from anyone and does not end the sign-in as the server's answer), then an OAuth
    /// error, then the code.
    func read(_ response: MSALWebAuthenticationResponse) throws -> Outcome {
        let parameters = response.parameters
        guard parameters["state"] == state else {
            throw MSALErrorInfo.internal(.internalErrorInvalidState,
                                         parameters["state"] == nil
                                             ? "The authorization response carries no state; it is not the answer to this request."
                                             : "The authorization response's state does not match the request.",
                                         correlationId: correlationId)
        }
        if let error = OAuthErrorBody.fromRedirect(parameters) {
            throw error.msalError(httpStatus: nil, headers: nil, correlationId: correlationId)
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The authorization response carries neither a code nor an error.",
                                         correlationId: correlationId)
        }
        return .code(code, clientInfo: parameters["client_info"])
    }

    /// The redemption of `code`, received at `redirectUri` (RFC 6749 §4.1.3 with PKCE, RFC 7636 §4.5).
    func codeGrant(code: String, redirectUri: String) -> AuthorizationCodeGrantRequest {
        AuthorizationCodeGrantRequest(clientId: clientId, code: code, codeVerifier: codeVerifier, redirectUri: redirectUri,
                                      scopes: scopes, claims: claims)
    }
}
