public import Foundation
public import MSALCore
public import _CryptoExtras
import Crypto

/// An identity provider behind MSAL's transport seam, for flow tests and benchmarks without sockets.
///
/// It answers instance discovery, OpenID metadata, the signing keys and the token endpoint as Microsoft Entra ID
/// does (authorization code with PKCE, refresh tokens that rotate, RS256-signed id tokens), and issues
/// authorization codes to ``MSALScriptedWebAuthenticator``. Its knobs script unusual or hostile answers: failures,
/// delays, declined scopes, forged id tokens, another `preferred_cache`. Tests that need a real server use the
/// emulator (`MSALEmulator`). Safe to share between tasks: every knob and all state sit behind locks.
///
/// ```swift
/// let provider = MSALScriptedIdentityProvider()
/// config.httpClient = provider
/// let webview = MSALWebviewParameters()
/// webview.webAuthenticator = MSALScriptedWebAuthenticator(provider: provider)
/// ```
public final class MSALScriptedIdentityProvider: MSALHTTPClient, @unchecked Sendable {
    /// A user the provider signs in.
    public struct User: Sendable {
        /// The object id (`oid`, `client_info.uid`).
        public var oid: String
        /// The home tenant id (`tid`, `client_info.utid`).
        public var tenant: String
        /// The user name (`preferred_username`).
        public var username: String
        /// The display name.
        public var name: String

        /// Creates a user.
        public init(oid: String, tenant: String, username: String, name: String) {
            self.oid = oid
            self.tenant = tenant
            self.username = username
            self.name = name
        }
    }

    /// The host it answers for, such as `login.microsoftonline.com`.
    public let host: String
    /// The tenant of its discovery and metadata answers.
    public let tenant: String
    /// The client id of its id tokens' audience by default.
    public let clientId: String

    /// The user signed in when the authorization request names no user ``usersByLoginHint`` knows.
    @MSALLocked public var user = User(oid: "9f4880d8-80ba-4c40-97bc-f7a23c703084", tenant: "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
                                       username: "alice@contoso.example", name: "Alice")
    /// Picks the user from the authorization request's `login_hint` (many users, as a benchmark needs).
    @MSALLocked public var usersByLoginHint: (@Sendable (String) -> User?)?
    /// The client secret client credentials requests must present; nil accepts any secret or assertion.
    @MSALLocked public var clientSecret: String?
    /// Lifetime of issued access tokens, in seconds.
    @MSALLocked public var expiresIn = 3600
    /// The least length of issued access tokens (padded), to give caches realistic sizes.
    @MSALLocked public var accessTokenLength = 0
    /// `refresh_in` of token responses, when set.
    @MSALLocked public var refreshIn: Int?
    /// Scopes the server refuses to grant.
    @MSALLocked public var declinedScopes: Set<String> = []
    /// Widens (or narrows) the granted scopes of each token response.
    @MSALLocked public var grantedScopes: (@Sendable ([String]) -> [String])?
    /// The family id (`foci`) of token responses, when set.
    @MSALLocked public var familyId: String?
    /// Seconds each token request takes.
    @MSALLocked public var tokenDelay: TimeInterval = 0
    /// The clock id tokens are issued by (give it the application's, so that tokens fit its notion of time).
    @MSALLocked public var clock: any MSALClock = MSALSystemClock()
    /// The `preferred_cache` (and alias) instance discovery claims for this host; nil: the host itself.
    @MSALLocked public var discoveryClaimsCache: String?
    /// Whether the metadata publishes `jwks_uri` (and the provider serves its keys there).
    @MSALLocked public var publishesKeys = true
    /// Whether id tokens are signed; when false they carry a placeholder signature (with ``publishesKeys`` false,
    /// MSAL relies on TLS, which is what a benchmark needs: no RSA signature per token).
    @MSALLocked public var signsIdTokens = true
    /// Applied to the claims of each id token before it is signed.
    @MSALLocked public var idTokenClaims: (@Sendable (inout [String: Any]) -> Void)?
    /// Applied to each id token after signing (to forge or strip signatures).
    @MSALLocked public var idTokenRewrite: (@Sendable (String) -> String)?
    /// Whether token responses carry an id token.
    @MSALLocked public var sendsIdToken = true
    /// The HTTP `Date` of token responses (the provider's clock), when set.
    @MSALLocked public var serverDate: Date?
    /// The key id of the signing key.
    @MSALLocked public var signingKeyId = "k1"
    /// Whether every request is kept for ``requests`` (a benchmark turns this off and reads ``requestCount``).
    @MSALLocked public var recordsRequests = true
    /// The polling interval of the device codes the provider issues, in seconds.
    @MSALLocked public var deviceCodeInterval = 5
    /// The lifetime of the device codes the provider issues, in seconds.
    @MSALLocked public var deviceCodeLifetime = 900
    /// The device codes issued, with the scope each was asked for; a device code grant for one of them signs
    /// ``user`` in (script ``scripted`` answers such as `authorization_pending` to make it wait).
    let deviceCodes = LockedBox<[String: String]>([:])

    /// The key id tokens are signed with (shared by every provider: generating one takes a while).
    public static let signingKey: _RSA.Signing.PrivateKey = {
        // A 2048-bit key always generates; a failure here is a broken crypto library.
        // swiftlint:disable:next force_try
        try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    }()

    struct Grant: Sendable {
        var user: User
        var nonce: String
        var scope: String
        var challenge: String
        var redirect: String
    }

    private struct State: Sendable {
        var codes: [String: Grant] = [:]
        var refreshTokens: [String: User] = [:]
        var counter = 0
        var log: [MSALHTTPRequest] = []
        var count = 0
        var scripted: [MSALHTTPResponse] = []
        var failures = 0
    }

    private let state = LockedBox(State())

    /// Creates a provider for `host`.
    public init(host: String = "login.microsoftonline.com", tenant: String = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
                clientId: String = "b6c69a37-df96-4db0-9088-2ab96e1d8215") {
        self.host = host
        self.tenant = tenant
        self.clientId = clientId
    }

    /// Answers for the next token requests, taken before the normal behaviour.
    public var scripted: [MSALHTTPResponse] {
        get { state.withLock { $0.scripted } }
        set { state.withLock { $0.scripted = newValue } }
    }

    /// How many of the next token requests fail with `URLError(.timedOut)`.
    public var failures: Int {
        get { state.withLock { $0.failures } }
        set { state.withLock { $0.failures = newValue } }
    }

    /// Every request received (when ``recordsRequests``), oldest first.
    public var requests: [MSALHTTPRequest] { state.withLock { $0.log } }
    /// How many requests were received.
    public var requestCount: Int { state.withLock { $0.count } }
    /// The token endpoint requests received.
    public var tokenRequests: [MSALHTTPRequest] { requests.filter { $0.url.path.hasSuffix("/token") } }
    /// The number of key-set requests served.
    public var keyRequests: Int { requests.filter { $0.url.path.hasSuffix("/discovery/v2.0/keys") }.count }
    /// The form bodies of the token requests.
    public func tokenRequestBodies() -> [[String: String]] {
        tokenRequests.map { FormEncoding.decode(String(decoding: $0.body ?? Data(), as: UTF8.self)) }
    }
    /// Forgets the requests received so far.
    public func resetLog() { state.withLock { $0.log.removeAll() } }
    /// Revokes every refresh token issued so far.
    public func revokeAllRefreshTokens() { state.withLock { $0.refreshTokens.removeAll() } }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        let records = recordsRequests
        state.withLock { state in
            state.count += 1
            if records { state.log.append(request) }
        }
        let path = request.url.path
        if path.hasSuffix("/discovery/instance") { return discovery() }
        if path.hasSuffix("/discovery/v2.0/keys") { return try keys() }
        if path.hasSuffix("/.well-known/openid-configuration") { return metadata(request.url) }
        if path.hasSuffix("/oauth2/v2.0/devicecode") {
            return deviceAuthorization(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)))
        }
        if path.hasSuffix("/oauth2/v2.0/token") {
            let delay = tokenDelay
            if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
            let fails = state.withLock { state -> Bool in
                guard state.failures > 0 else { return false }
                state.failures -= 1
                return true
            }
            if fails { throw URLError(.timedOut) }
            if let next = state.withLock({ $0.scripted.isEmpty ? nil : $0.scripted.removeFirst() }) { return next }
            return token(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)))
        }
        return Self.json(404, ["error": "not_found"])
    }

    /// Plays the browser: returns the redirect parameters (`code`, `state`, `client_info`) for an authorization URL.
    public func authorize(_ url: URL) -> [String: String] {
        let query = FormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        let signedIn = query["login_hint"].flatMap { hint in usersByLoginHint?(hint) } ?? user
        let code = state.withLock { state -> String in
            state.counter += 1
            let code = "code-\(state.counter)"
            state.codes[code] = Grant(user: signedIn, nonce: query["nonce"] ?? "", scope: query["scope"] ?? "",
                                      challenge: query["code_challenge"] ?? "", redirect: query["redirect_uri"] ?? "")
            return code
        }
        return ["code": code, "state": query["state"] ?? "", "client_info": clientInfo(signedIn)]
    }

    /// The `client_info` of `user` (the default user when nil).
    public func clientInfo(_ user: User? = nil) -> String {
        let user = user ?? self.user
        return Base64URL.encode(Data(#"{"uid":"\#(user.oid)","utid":"\#(user.tenant)"}"#.utf8))
    }

    func redeem(code: String) -> Grant? {
        state.withLock { $0.codes.removeValue(forKey: code) }
    }

    func redeem(refreshToken: String) -> User? {
        state.withLock { $0.refreshTokens.removeValue(forKey: refreshToken) }
    }

    func issueTokens(for user: User) -> (accessToken: String, refreshToken: String) {
        state.withLock { state in
            state.counter += 1
            let refreshToken = "rt-\(state.counter)"
            state.refreshTokens[refreshToken] = user
            var accessToken = "at-\(state.counter)-"
            let length = accessTokenLength
            if accessToken.count < length { accessToken += String(repeating: "x", count: length - accessToken.count) }
            return (accessToken, refreshToken)
        }
    }
}
