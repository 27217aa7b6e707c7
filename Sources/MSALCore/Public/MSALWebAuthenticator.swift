public import Foundation

/// What the user agent returned at the end of an interactive sign-in.
public struct MSALWebAuthenticationResponse: Sendable {
    /// The redirect URI exactly as it was sent in the authorization request (with the loopback port, if any).
    public var redirectUri: String
    /// The response parameters: `code`, `state`, `client_info`, or `error`, `error_description`, ... — read from the
    /// query, the fragment or a form post, whichever the server used.
    public var parameters: [String: String]

    /// Creates a response.
    public init(redirectUri: String, parameters: [String: String]) {
        self.redirectUri = redirectUri
        self.parameters = parameters
    }

    /// Creates a response from the URL the user agent was redirected to (parameters from query and fragment).
    public init(redirectUri: String, callbackURL: URL) {
        var parameters: [String: String] = [:]
        let components = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false)
        for item in components?.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        if let fragment = components?.percentEncodedFragment {
            var fragmentComponents = URLComponents()
            fragmentComponents.percentEncodedQuery = fragment
            for item in fragmentComponents.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        }
        self.init(redirectUri: redirectUri, parameters: parameters)
    }
}

/// One interactive sign-in, as MSAL hands it to a user agent.
public struct MSALWebAuthenticationRequest: Sendable {
    /// The redirect URI configured for the application, such as `http://localhost`.
    public var redirectUri: String
    /// The expected `state`; a response with another state must be rejected.
    public var state: String
    /// The correlation id of the request.
    public var correlationId: UUID
    /// Whether the user prefers an ephemeral browser session.
    public var prefersEphemeralSession: Bool
    /// The parameters the application passed (the presenting view controller, on Apple platforms), if any.
    public var webviewParameters: MSALWebviewParameters?
    /// The application's answer to a PKeyAuth challenge (``PKeyAuthResponse``), for an embedded web view: signed with
    /// the device's registration, or the empty answer.
    package var deviceAuthentication: (@Sendable (PKeyAuthChallenge, URL) -> String)?

    /// Creates a request.
    public init(redirectUri: String, state: String, correlationId: UUID, prefersEphemeralSession: Bool,
                webviewParameters: MSALWebviewParameters? = nil) {
        self.redirectUri = redirectUri
        self.state = state
        self.correlationId = correlationId
        self.prefersEphemeralSession = prefersEphemeralSession
        self.webviewParameters = webviewParameters
    }
}

/// The user agent of interactive sign-in: it shows the authorization URL to the user and returns the redirect.
///
/// A sign-in runs in three steps, in this order:
/// 1. MSAL asks the user agent to ``prepare(_:)`` for the request: a loopback user agent binds its listener here
///    and reports the redirect URI it listens on (``MSALWebAuthenticationSession/redirectUri``);
/// 2. MSAL builds the authorization URL (PKCE, state, nonce) for that redirect URI;
/// 3. MSAL asks the session to ``MSALWebAuthenticationSession/present(_:)`` the URL, and redeems the code it returns.
///
/// The user agent never calls back into MSAL. Implementations throw ``MSALError/userCanceled`` when the user gives
/// up or the wait times out, and ``MSALInternalError/internalErrorInteractiveSessionAlreadyRunning`` when they
/// cannot run two at once. A user agent with nothing to prepare adopts ``MSALDirectWebAuthenticator``.
public protocol MSALWebAuthenticator: Sendable {
    /// Prepares one sign-in and returns the session that will show it.
    func prepare(_ request: MSALWebAuthenticationRequest) async throws -> any MSALWebAuthenticationSession

    /// Opens the end-session (sign-out) URL in the user agent. The default implementation does nothing.
    func endSession(url: URL) async throws

    /// Opens the end-session (sign-out) URL for `request`: the redirect URI, a fresh `state` and the application's
    /// web view parameters of the sign-out. A user agent that waits for the end-session endpoint to redirect back
    /// (the system authentication session) implements this one; the default calls ``endSession(url:)``.
    func endSession(url: URL, request: MSALWebAuthenticationRequest) async throws
}

extension MSALWebAuthenticator {
    public func endSession(url: URL) async throws {}

    public func endSession(url: URL, request: MSALWebAuthenticationRequest) async throws {
        try await endSession(url: url)
    }
}

/// One prepared sign-in of a user agent (``MSALWebAuthenticator/prepare(_:)``).
public protocol MSALWebAuthenticationSession: Sendable {
    /// The redirect URI the authorization request must name: the configured one, or the one the user agent
    /// listens on (a loopback listener adds its port).
    var redirectUri: String { get }

    /// Shows `authorizationURL` and returns the response that reached ``redirectUri``. Called at most once.
    func present(_ authorizationURL: URL) async throws -> MSALWebAuthenticationResponse

    /// Releases what preparing took (a listening socket), when the sign-in is not presented after all. The default
    /// implementation does nothing.
    func close() async
}

extension MSALWebAuthenticationSession {
    public func close() async {}
}

/// A user agent with nothing to prepare: it shows the authorization URL built for the configured redirect URI.
public protocol MSALDirectWebAuthenticator: MSALWebAuthenticator {
    /// Shows `authorizationURL` for `request` and returns the response that reached the redirect URI.
    func present(_ authorizationURL: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse
}

extension MSALDirectWebAuthenticator {
    public func prepare(_ request: MSALWebAuthenticationRequest) async throws -> any MSALWebAuthenticationSession {
        DirectWebAuthenticationSession(authenticator: self, request: request)
    }
}

/// The session of a ``MSALDirectWebAuthenticator``.
private struct DirectWebAuthenticationSession<Authenticator: MSALDirectWebAuthenticator>: MSALWebAuthenticationSession {
    let authenticator: Authenticator
    let request: MSALWebAuthenticationRequest

    var redirectUri: String { request.redirectUri }

    func present(_ authorizationURL: URL) async throws -> MSALWebAuthenticationResponse {
        try await authenticator.present(authorizationURL, for: request)
    }
}
