/// How a ``LoopbackRedirectListener`` listens for one authorization response.
public struct LoopbackConfiguration: Sendable {
    /// The path of the redirect URI (`/` for `http://localhost`). Only requests to exactly this path are considered.
    public var path: String
    /// The `state` of the pending authorization request. A response must carry exactly this value (RFC 8252 §8.9).
    public var expectedState: String
    /// The port to bind, or `0` for an ephemeral port chosen by the system (RFC 8252 §7.3).
    public var port: Int
    /// The loopback addresses to try, in order; the first that binds is used. Default IPv4 then IPv6.
    public var bindAddresses: [String]
    /// Whether every address of ``bindAddresses`` must be bound on the same port (for `http://localhost`, which a
    /// browser may resolve to either family): the listener then binds them all, or none, so that no other process
    /// can take the other family's socket on that port. An address whose family the system lacks is skipped.
    public var bindsEveryAddress: Bool
    /// The largest request (head and body) a client may send before it is answered 413 and disconnected.
    public var maxRequestBytes: Int
    /// How long one connection may take to send a complete request before it is closed.
    public var requestTimeout: Duration
    /// The page shown when the response reached the application.
    public var successPage: String
    /// The page shown when the response carries an OAuth error (`error` parameter).
    public var failurePage: String

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - path: the redirect URI's path; an empty path means `/`.
    ///   - expectedState: the `state` sent in the authorization request.
    ///   - port: `0` (ephemeral) or the configured port of the redirect URI.
    ///   - bindAddresses: the loopback addresses to try in order.
    ///   - bindsEveryAddress: bind all of `bindAddresses` on one port, or none (default false: the first that binds).
    ///   - maxRequestBytes: the request size limit (64 KiB by default).
    ///   - requestTimeout: the time limit for one connection to deliver its request (10 s by default).
    public init(path: String, expectedState: String, port: Int = 0,
                bindAddresses: [String] = ["127.0.0.1", "::1"], bindsEveryAddress: Bool = false,
                maxRequestBytes: Int = 64 * 1024, requestTimeout: Duration = .seconds(10),
                successPage: String = LoopbackPages.success, failurePage: String = LoopbackPages.failure) {
        self.path = path.isEmpty ? "/" : path
        self.expectedState = expectedState
        self.port = port
        self.bindAddresses = bindAddresses
        self.bindsEveryAddress = bindsEveryAddress
        self.maxRequestBytes = maxRequestBytes
        self.requestTimeout = requestTimeout
        self.successPage = successPage
        self.failurePage = failurePage
    }
}

/// The small pages the listener answers with. They never echo a code, token or any request parameter.
public enum LoopbackPages {
    /// Shown when the sign-in response reached the application.
    public static let success = page(title: "Signed in",
                                     message: "The sign-in is complete. You can close this window and return to the application.")
    /// Shown when the identity provider returned an error.
    public static let failure = page(title: "Sign-in failed",
                                     message: "The sign-in did not complete. Return to the application for details.")

    static let notFound = page(title: "Not found", message: "This address is not part of a sign-in.")
    static let badState = page(title: "Unexpected response",
                               message: "This response does not belong to the pending sign-in and was ignored.")
    static let notAllowed = page(title: "Method not allowed", message: "Only GET and form POST are accepted here.")
    static let tooLarge = page(title: "Request too large", message: "The request exceeds the allowed size.")

    static func page(title: String, message: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
        <style>body{font-family:sans-serif;margin:60px auto;max-width:480px;color:#222}</style></head>
        <body><h1>\(title)</h1><p>\(message)</p></body></html>
        """
    }
}

/// Why waiting for the redirect ended without a response.
public enum LoopbackListenerError: Error, Sendable, Equatable {
    /// No loopback address could be bound (the system's messages, one per address tried).
    case bindFailed([String])
    /// No matching response arrived in time.
    case timedOut
    /// The listener was closed before a response arrived.
    case closed
}

/// The accepted authorization response.
public struct LoopbackRedirect: Sendable, Equatable {
    /// `GET` (query) or `POST` (form_post).
    public var method: String
    /// The response parameters, decoded.
    public var parameters: [String: String]

    /// Creates a response.
    public init(method: String, parameters: [String: String]) {
        self.method = method
        self.parameters = parameters
    }
}
