import _CryptoExtras
import Crypto
import Foundation
import MSAL
@testable import MSALCore

/// A scripted identity provider behind MSAL's HTTP seam, for flow tests without sockets. It answers instance
/// discovery, OpenID metadata and the token endpoint like Entra, and hands out authorization codes through
/// ``FakeWebAuthenticator``. Tests that need a real server use the emulator.
final class FakeIdentityProvider: MSALHTTPClient, @unchecked Sendable {
    struct User { var oid: String; var tenant: String; var username: String; var name: String }

    let host: String
    let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    var user = User(oid: "9f4880d8-80ba-4c40-97bc-f7a23c703084", tenant: "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
                    username: "alice@contoso.example", name: "Alice")

    private let lock = NSLock()
    private var codes: [String: (nonce: String, scope: String, challenge: String, redirect: String)] = [:]
    private var refreshTokens: [String: String] = [:] // rt -> scope
    private var counter = 0
    private var log: [MSALHTTPRequest] = []
    /// Scripted answers for the next token requests (taken before the normal behaviour).
    var scripted: [MSALHTTPResponse] = []
    /// Transport failures to throw for the next token requests.
    var failures = 0
    /// Seconds each token request takes.
    var tokenDelay: TimeInterval = 0
    /// Lifetime of issued access tokens.
    var expiresIn = 3600
    var refreshIn: Int?
    /// Scopes the server refuses to grant.
    var declinedScopes: Set<String> = []
    var familyId: String?
    /// The clock id tokens are issued by (the application's, so that tokens fit its notion of time).
    var clock: any MSALClock = MSALSystemClock()

    // Hostile or unusual behaviour, for the trust tests.
    /// The `preferred_cache` (and alias) instance discovery claims for this host; nil: the host itself.
    var discoveryClaimsCache: String?
    /// Whether the metadata publishes `jwks_uri` (and the provider serves its keys there).
    var publishesKeys = true
    /// Applied to the claims of each id token before it is signed.
    var idTokenClaims: (@Sendable (inout [String: Any]) -> Void)?
    /// Applied to each id token after signing (to forge or strip signatures).
    var idTokenRewrite: (@Sendable (String) -> String)?
    /// Whether token responses carry an id token.
    var sendsIdToken = true
    /// The HTTP `Date` of token responses (the provider's clock), when set.
    var serverDate: Date?
    /// The key id tokens are signed with, and the key set it publishes.
    static let signingKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    var signingKeyId = "k1"
    /// The number of key-set requests served.
    var keyRequests: Int { requests.filter { $0.url.path.hasSuffix("/discovery/v2.0/keys") }.count }

    init(host: String = "login.microsoftonline.com") { self.host = host }

    var requests: [MSALHTTPRequest] { lock.withLock { log } }
    var tokenRequests: [MSALHTTPRequest] { requests.filter { $0.url.path.hasSuffix("/token") } }
    func tokenRequestBodies() -> [[String: String]] {
        tokenRequests.map { FormEncoding.decode(String(decoding: $0.body ?? Data(), as: UTF8.self)) }
    }
    func resetLog() { lock.withLock { log.removeAll() } }
    func revokeAllRefreshTokens() { lock.withLock { refreshTokens.removeAll() } }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        lock.withLock { log.append(request) }
        let path = request.url.path
        if path.hasSuffix("/discovery/instance") {
            let cache = discoveryClaimsCache ?? host
            return json(200, ["tenant_discovery_endpoint": "https://\(host)/\(tenant)/v2.0/.well-known/openid-configuration",
                              "api-version": "1.1",
                              "metadata": [["preferred_network": host, "preferred_cache": cache,
                                            "aliases": Array(Set([host, cache])).sorted()]]])
        }
        if path.hasSuffix("/discovery/v2.0/keys") {
            let primitives = try Self.signingKey.publicKey.getKeyPrimitives()
            return json(200, ["keys": [["kty": "RSA", "use": "sig", "kid": signingKeyId,
                                        "n": Base64URL.encode(primitives.modulus),
                                        "e": Base64URL.encode(primitives.publicExponent)]]])
        }
        if path.hasSuffix("/.well-known/openid-configuration") {
            let base = request.url.absoluteString.replacingOccurrences(of: "/v2.0/.well-known/openid-configuration", with: "")
            let issuerTenant = base.hasSuffix("/common") || base.hasSuffix("/organizations") ? "{tenantid}" : tenant
            return json(200, ["authorization_endpoint": base + "/oauth2/v2.0/authorize",
                              "token_endpoint": base + "/oauth2/v2.0/token",
                              "end_session_endpoint": base + "/oauth2/v2.0/logout",
                              "issuer": "https://\(host)/\(issuerTenant)/v2.0"].merging(
                                publishesKeys ? ["jwks_uri": "https://\(host)/common/discovery/v2.0/keys"] : [:],
                                uniquingKeysWith: { $1 }))
        }
        if path.hasSuffix("/oauth2/v2.0/token") {
            if tokenDelay > 0 { try await Task.sleep(nanoseconds: UInt64(tokenDelay * 1e9)) }
            if let failure = lock.withLock({ () -> Bool? in failures > 0 ? { failures -= 1; return true }() : nil }), failure {
                throw URLError(.timedOut)
            }
            if let next = lock.withLock({ scripted.isEmpty ? nil : scripted.removeFirst() }) { return next }
            return token(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)))
        }
        return json(404, ["error": "not_found"])
    }

    /// Simulates the browser part: returns the redirect parameters for an authorization URL.
    func authorize(_ url: URL) -> [String: String] {
        let query = FormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        let code = lock.withLock { () -> String in
            counter += 1
            let code = "code-\(counter)"
            codes[code] = (query["nonce"] ?? "", query["scope"] ?? "", query["code_challenge"] ?? "", query["redirect_uri"] ?? "")
            return code
        }
        return ["code": code, "state": query["state"] ?? "", "client_info": clientInfo()]
    }

    func clientInfo() -> String {
        Base64URL.encode(Data(#"{"uid":"\#(user.oid)","utid":"\#(user.tenant)"}"#.utf8))
    }

    private func token(_ form: [String: String]) -> MSALHTTPResponse {
        var nonce: String?
        var scope: String
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"], let entry = lock.withLock({ codes.removeValue(forKey: code) }) else {
                return json(400, ["error": "invalid_grant", "error_description": "AADSTS70008: The code has expired.", "error_codes": [70008]])
            }
            guard PKCE.challenge(for: form["code_verifier"] ?? "") == entry.challenge, form["redirect_uri"] == entry.redirect else {
                return json(400, ["error": "invalid_grant", "error_description": "AADSTS501481: The code verifier does not match."])
            }
            nonce = entry.nonce
            scope = form["scope"] ?? entry.scope
        case "refresh_token":
            guard let rt = form["refresh_token"], lock.withLock({ refreshTokens.removeValue(forKey: rt) }) != nil else {
                return json(400, ["error": "invalid_grant", "error_description": "AADSTS700082: The refresh token has expired.",
                                  "error_codes": [700082], "suberror": "bad_token"])
            }
            scope = form["scope"] ?? ""
        default:
            return json(400, ["error": "unsupported_grant_type"])
        }
        let granted = scope.split(separator: " ").map(String.init)
            .filter { !declinedScopes.contains($0) && !["openid", "profile", "offline_access"].contains($0) }
        let (at, rt) = lock.withLock { () -> (String, String) in
            counter += 1
            let rt = "rt-\(counter)"
            refreshTokens[rt] = scope
            return ("at-\(counter)", rt)
        }
        var body: [String: Any] = ["token_type": "Bearer", "scope": granted.joined(separator: " "),
                                   "expires_in": expiresIn, "ext_expires_in": expiresIn * 2,
                                   "access_token": at, "refresh_token": rt, "client_info": clientInfo()]
        if sendsIdToken { body["id_token"] = idToken(nonce: nonce, audience: form["client_id"] ?? clientId) }
        if let refreshIn { body["refresh_in"] = refreshIn }
        if let familyId { body["foci"] = familyId }
        var response = json(200, body)
        if let serverDate { response.headers["Date"] = Self.httpDate(serverDate) }
        return response
    }

    func idToken(nonce: String?, audience: String? = nil) -> String {
        var claims: [String: Any] = ["iss": "https://\(host)/\(user.tenant)/v2.0", "aud": audience ?? clientId,
                                     "exp": Int(clock.now().timeIntervalSince1970) + 3600, "iat": Int(clock.now().timeIntervalSince1970),
                                     "tid": user.tenant, "oid": user.oid, "sub": "sub-\(user.oid)",
                                     "preferred_username": user.username, "name": user.name, "ver": "2.0"]
        if let nonce { claims["nonce"] = nonce }
        idTokenClaims?(&claims)
        let token = TestJWT.make(claims: claims, header: ["alg": "RS256", "typ": "JWT", "kid": signingKeyId],
                                 signer: Self.signingKey)
        return idTokenRewrite?(token) ?? token
    }

    /// An IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private func json(_ status: Int, _ object: [String: Any]) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"],
                         body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}

/// A web authenticator that "signs the user in" by asking the fake provider for a code.
struct FakeWebAuthenticator: MSALDirectWebAuthenticator {
    let provider: FakeIdentityProvider
    var redirectOverride: [String: String] = [:]

    func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        var parameters = provider.authorize(url)
        for (key, value) in redirectOverride { parameters[key] = value }
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, parameters: parameters)
    }
}

/// A clock tests move by hand.
final class TestClock: MSALClock, @unchecked Sendable {
    private let box: LockedBox<Date>
    init(_ start: Date = Date()) { box = LockedBox(start) }
    func now() -> Date { box.get() }
    func advance(_ seconds: TimeInterval) { box.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Builds an application on the fake provider with an in-memory cache.
func makeFakeApp(_ provider: FakeIdentityProvider, clock: TestClock = TestClock(),
                 storage: (any MSALTokenCacheStorage)? = nil,
                 configure: (MSALPublicClientApplicationConfig) -> Void = { _ in }) throws -> MSALPublicClientApplication {
    let authority = try MSALAADAuthority(url: URL(string: "https://\(provider.host)/common")!)
    let config = MSALPublicClientApplicationConfig(clientId: provider.clientId, redirectUri: "http://localhost", authority: authority)
    config.httpClient = provider
    config.clock = clock
    provider.clock = clock
    config.cacheConfig.storage = storage ?? MSALInMemoryTokenCacheStorage()
    configure(config)
    return try MSALPublicClientApplication(configuration: config)
}

func interactiveParameters(_ provider: FakeIdentityProvider, scopes: [String] = ["User.Read"]) -> MSALInteractiveTokenParameters {
    let webview = MSALWebviewParameters()
    webview.webAuthenticator = FakeWebAuthenticator(provider: provider)
    return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
}
