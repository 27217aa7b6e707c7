public import Foundation
import MSALSupport

/// What a web app keeps between sending the user to sign in and the redirect coming back, typically in the
/// user's server-side session: the authorization URL to redirect to, and the state, nonce and PKCE verifier the
/// response is checked against. `Codable`, so it can be stored as JSON. Never put it in a cookie the browser can
/// read: the verifier is a secret until the code is redeemed.
public struct MSALAuthorizationCodeFlow: Codable, Sendable, CustomStringConvertible {
    /// Where to send the user's browser.
    public let authorizationURL: URL
    /// The `state` the response must carry.
    public let state: String
    /// The `nonce` the id token must carry.
    public let nonce: String
    /// The PKCE code verifier (RFC 7636), sent only with the code.
    public let codeVerifier: String
    /// The redirect URI the response comes back to.
    public let redirectUri: String
    /// The scopes asked for.
    public let scopes: [String]

    public var description: String {
        "MSALAuthorizationCodeFlow(authorizationURL: \(authorizationURL.absoluteString), redirectUri: \(redirectUri), "
            + "scopes: \(scopes), codeVerifier: <redacted>)"
    }
}

/// The parameters of ``MSALConfidentialClientApplication/startAuthorizationCodeFlow(with:)``: a web app signs a
/// user in (authorization code with PKCE, redeemed with the app's credential).
public final class MSALAuthorizationCodeParameters: MSALParameters, @unchecked Sendable {
    private struct Settings: Sendable {
        var scopes: [String]
        var redirectUri: String
        var loginHint: String?
        var domainHint: String?
        var prompt = MSALPromptType.default
        var responseMode: String?
        var extraQueryParameters: [String: String] = [:]
        var correlationId: UUID?
    }

    private let box: LockedBox<Settings>

    /// The scopes, such as `["User.Read"]`. MSAL adds `openid`, `profile` and `offline_access`.
    public var scopes: [String] {
        get { box.get().scopes }
        set { box.withLock { $0.scopes = newValue } }
    }
    /// The web app's redirect URI, registered for the app (`https://`, or `http://localhost` while developing).
    public var redirectUri: String {
        get { box.get().redirectUri }
        set { box.withLock { $0.redirectUri = newValue } }
    }
    /// A user name to pre-fill.
    public var loginHint: String? {
        get { box.get().loginHint }
        set { box.withLock { $0.loginHint = newValue } }
    }
    /// A domain hint (`domain_hint`).
    public var domainHint: String? {
        get { box.get().domainHint }
        set { box.withLock { $0.domainHint = newValue } }
    }
    /// How the user is asked. Default ``MSALPromptType/promptIfNecessary``.
    public var promptType: MSALPromptType {
        get { box.get().prompt }
        set { box.withLock { $0.prompt = newValue } }
    }
    /// `form_post` to receive the response as a POST (recommended for web apps: the code stays out of URLs and
    /// logs), or nil for a query string.
    public var responseMode: String? {
        get { box.get().responseMode }
        set { box.withLock { $0.responseMode = newValue } }
    }
    /// Extra query parameters of the authorization URL.
    public var extraQueryParameters: [String: String] {
        get { box.get().extraQueryParameters }
        set { box.withLock { $0.extraQueryParameters = newValue } }
    }
    /// The correlation id; nil makes a new one.
    public var correlationId: UUID? {
        get { box.get().correlationId }
        set { box.withLock { $0.correlationId = newValue } }
    }

    /// Parameters for `scopes`, answered at `redirectUri`.
    public init(scopes: [String], redirectUri: String) {
        box = LockedBox(Settings(scopes: scopes, redirectUri: redirectUri))
        super.init()
    }

    func request() -> (scopes: [String], redirectUri: String, loginHint: String?, domainHint: String?,
                       prompt: MSALPromptType, responseMode: String?, extra: [String: String], correlationId: UUID) {
        let s = box.get()
        return (s.scopes, s.redirectUri, s.loginHint, s.domainHint, s.prompt, s.responseMode, s.extraQueryParameters,
                s.correlationId ?? CorrelationID.next())
    }
}
