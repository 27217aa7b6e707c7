import Crypto
public import Foundation
public import MSALCore
import _CryptoExtras

extension MSALScriptedIdentityProvider {
    func discovery() -> MSALHTTPResponse {
        let cache = discoveryClaimsCache ?? host
        return Self.json(200, ["tenant_discovery_endpoint": "https://\(host)/\(tenant)/v2.0/.well-known/openid-configuration",
                               "api-version": "1.1",
                               "metadata": [["preferred_network": host, "preferred_cache": cache,
                                             "aliases": Array(Set([host, cache])).sorted()]]])
    }

    func keys() throws -> MSALHTTPResponse {
        let primitives = try Self.signingKey.publicKey.getKeyPrimitives()
        return Self.json(200, ["keys": [["kty": "RSA", "use": "sig", "kid": signingKeyId,
                                         "n": Base64URL.encode(primitives.modulus),
                                         "e": Base64URL.encode(primitives.publicExponent)]]])
    }

    func metadata(_ url: URL) -> MSALHTTPResponse {
        let base = url.absoluteString.replacingOccurrences(of: "/v2.0/.well-known/openid-configuration", with: "")
        let issuerTenant = base.hasSuffix("/common") || base.hasSuffix("/organizations") ? "{tenantid}" : tenant
        var document: [String: Any] = ["authorization_endpoint": base + "/oauth2/v2.0/authorize",
                                       "token_endpoint": base + "/oauth2/v2.0/token",
                                       "end_session_endpoint": base + "/oauth2/v2.0/logout",
                                       "issuer": "https://\(host)/\(issuerTenant)/v2.0"]
        if publishesKeys { document["jwks_uri"] = "https://\(host)/common/discovery/v2.0/keys" }
        return Self.json(200, document)
    }

    func token(_ form: [String: String]) -> MSALHTTPResponse {
        let nonce: String?
        let scope: String
        let signedIn: User
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"], let grant = redeem(code: code) else {
                return Self.json(400, ["error": "invalid_grant", "error_description": "AADSTS70008: The code has expired.",
                                       "error_codes": [70008]])
            }
            guard PKCE.challenge(for: form["code_verifier"] ?? "") == grant.challenge, form["redirect_uri"] == grant.redirect else {
                return Self.json(400, ["error": "invalid_grant", "error_description": "AADSTS501481: The code verifier does not match."])
            }
            nonce = grant.nonce
            scope = form["scope"] ?? grant.scope
            signedIn = grant.user
        case "client_credentials":
            return appToken(form)
        case "urn:ietf:params:oauth:grant-type:device_code":
            guard let code = form["device_code"], let asked = redeem(deviceCode: code) else {
                return Self.json(400, ["error": "bad_verification_code", "error_description": "AADSTS70000: The device code is not valid.",
                                       "error_codes": [70000]])
            }
            nonce = nil
            scope = asked
            signedIn = user
        case "refresh_token":
            guard let presented = form["refresh_token"], let owner = redeem(refreshToken: presented) else {
                return Self.json(400, ["error": "invalid_grant", "error_description": "AADSTS700082: The refresh token has expired.",
                                       "error_codes": [700082], "suberror": "bad_token"])
            }
            nonce = nil
            scope = form["scope"] ?? ""
            signedIn = owner
        default:
            return Self.json(400, ["error": "unsupported_grant_type"])
        }
        let declined = declinedScopes
        var granted = scope.split(separator: " ").map(String.init)
            .filter { !declined.contains($0) && !["openid", "profile", "offline_access"].contains($0) }
        if let widen = grantedScopes { granted = widen(granted) }
        let (accessToken, refreshToken) = issueTokens(for: signedIn)
        let lifetime = expiresIn
        var body: [String: Any] = ["token_type": "Bearer", "scope": granted.joined(separator: " "),
                                   "expires_in": lifetime, "ext_expires_in": lifetime * 2,
                                   "access_token": accessToken, "refresh_token": refreshToken,
                                   "client_info": clientInfo(signedIn)]
        if sendsIdToken { body["id_token"] = idToken(nonce: nonce, audience: form["client_id"] ?? clientId, user: signedIn) }
        if let refreshIn { body["refresh_in"] = refreshIn }
        if let familyId { body["foci"] = familyId }
        var response = Self.json(200, body)
        if let serverDate { response.headers["Date"] = Self.httpDate(serverDate) }
        return response
    }

    /// Client credentials: an opaque app token for the requested `/.default` scope, when the client authenticates
    /// with ``clientSecret`` (any secret or assertion when it is nil).
    func appToken(_ form: [String: String]) -> MSALHTTPResponse {
        let authenticated = form["client_secret"] != nil || form["client_assertion"] != nil
        if !authenticated || (clientSecret != nil && form["client_assertion"] == nil && form["client_secret"] != clientSecret) {
            return Self.json(401, ["error": "invalid_client", "error_codes": [7000215],
                                   "error_description": "AADSTS7000215: Invalid client secret provided."])
        }
        guard let scope = form["scope"], scope.hasSuffix("/.default"), !scope.contains(" ") else {
            return Self.json(400, ["error": "invalid_scope", "error_codes": [1002012],
                                   "error_description": "AADSTS1002012: The provided value for scope is not valid."])
        }
        let lifetime = expiresIn
        var token = "app-" + UUID().uuidString
        if token.count < accessTokenLength { token += String(repeating: "a", count: accessTokenLength - token.count) }
        var body: [String: Any] = ["token_type": "Bearer", "expires_in": lifetime, "ext_expires_in": lifetime,
                                   "access_token": token]
        if let refreshIn { body["refresh_in"] = refreshIn }
        return Self.json(200, body)
    }

    /// An id token for `user` (the default user when nil), signed with ``signingKey`` when ``signsIdTokens``.
    public func idToken(nonce: String?, audience: String? = nil, user: User? = nil) -> String {
        let user = user ?? self.user
        let now = Int(clock.now().timeIntervalSince1970)
        var claims: [String: Any] = ["iss": "https://\(host)/\(user.tenant)/v2.0", "aud": audience ?? clientId,
                                     "exp": now + 3600, "iat": now,
                                     "tid": user.tenant, "oid": user.oid, "sub": "sub-\(user.oid)",
                                     "preferred_username": user.username, "name": user.name, "ver": "2.0"]
        if let nonce { claims["nonce"] = nonce }
        idTokenClaims?(&claims)
        let header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": signingKeyId]
        let input = Self.segment(header) + "." + Self.segment(claims)
        let token: String
        if signsIdTokens, let signature = try? Self.signingKey.signature(for: SHA256.hash(data: Data(input.utf8)),
                                                                         padding: .insecurePKCS1v1_5) {
            token = input + "." + Base64URL.encode(signature.rawRepresentation)
        } else {
            token = input + ".c2ln"
        }
        return idTokenRewrite?(token) ?? token
    }

    /// `date` as an HTTP date (IMF-fixdate).
    public static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func json(_ status: Int, _ object: [String: Any]) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"],
                         body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    static func segment(_ object: [String: Any]) -> String {
        Base64URL.encode((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}

/// A user agent that "signs the user in" by asking an ``MSALScriptedIdentityProvider`` for a code.
public struct MSALScriptedWebAuthenticator: MSALDirectWebAuthenticator {
    /// The provider that issues the codes.
    public let provider: MSALScriptedIdentityProvider
    /// Parameters that replace the provider's in the redirect (to test a wrong `state`, an error, ...).
    public var redirectOverride: [String: String]

    /// Creates the user agent.
    public init(provider: MSALScriptedIdentityProvider, redirectOverride: [String: String] = [:]) {
        self.provider = provider
        self.redirectOverride = redirectOverride
    }

    public func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        var parameters = provider.authorize(url)
        for (key, value) in redirectOverride { parameters[key] = value }
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, parameters: parameters)
    }
}
