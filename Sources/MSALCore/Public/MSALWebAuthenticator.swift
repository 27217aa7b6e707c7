import Foundation

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
    /// Builds the authorization URL for the redirect URI actually used (a loopback user agent binds a port first
    /// and passes `http://localhost:<port>`; others pass ``redirectUri`` unchanged).
    public var authorizationURL: @Sendable (_ effectiveRedirectUri: String) throws -> URL

    /// Creates a request.
    public init(redirectUri: String, state: String, correlationId: UUID, prefersEphemeralSession: Bool,
                authorizationURL: @escaping @Sendable (_ effectiveRedirectUri: String) throws -> URL) {
        self.redirectUri = redirectUri
        self.state = state
        self.correlationId = correlationId
        self.prefersEphemeralSession = prefersEphemeralSession
        self.authorizationURL = authorizationURL
    }
}

/// The user agent of interactive sign-in: it shows the authorization URL to the user and returns the redirect.
///
/// MSAL builds the request (PKCE, state, nonce) and redeems the code; the authenticator only moves the user
/// through the pages. Implementations throw ``MSALError/userCanceled`` when the user gives up or the wait times
/// out, and ``MSALInternalError/internalErrorInteractiveSessionAlreadyRunning`` when they cannot run two at once.
public protocol MSALWebAuthenticator: Sendable {
    /// Shows the sign-in pages and returns the response that reached the redirect URI.
    func authenticate(_ request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse

    /// Opens the end-session (sign-out) URL in the user agent. The default implementation does nothing.
    func endSession(url: URL) async throws
}

extension MSALWebAuthenticator {
    public func endSession(url: URL) async throws {}
}
