public import Foundation

/// One HTTP request for ``HTTPTransport``.
public struct HTTPTransportRequest: Sendable {
    /// The method, such as `GET` or `POST`.
    public var method: String
    /// The absolute `http` or `https` URL, including the query.
    public var url: URL
    /// Header fields, in order. `Host` and `Content-Length` are set by the transport.
    public var headers: [(name: String, value: String)]
    /// The body, or nil for none.
    public var body: Data?
    /// The longest the whole exchange may take, in seconds: connecting, sending, the response head and the
    /// whole body. Past it the request fails with ``HTTPTransportError/Kind/timedOut``.
    public var timeout: TimeInterval

    /// Creates a request.
    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil,
                timeout: TimeInterval) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response, with its whole body. Any status, including 3xx, is a response: the transport never
/// follows redirects.
public struct HTTPTransportResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// Header fields, in the order received.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(statusCode: Int, headers: [(name: String, value: String)], body: Data) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}

/// Why ``HTTPTransport`` could not complete an exchange. Task cancellation is reported as `CancellationError`.
public struct HTTPTransportError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The request's timeout passed before the whole response arrived.
        case timedOut
        /// No connection could be made to the server (refused, unreachable).
        case cannotConnect
        /// The host name could not be resolved.
        case hostNotFound
        /// The connection closed before the whole response arrived.
        case connectionLost
        /// TLS failed in the handshake, for a reason other than trust (see ``untrustedCertificate``).
        case secureConnectionFailed
        /// TLS failed because the server's certificate is not trusted: an unknown certificate authority, a name
        /// that does not match the host, or a certificate out of its validity period.
        case untrustedCertificate
        /// The proxy refused the tunnel or answered something other than HTTP.
        case proxyFailed
        /// The response body is larger than ``HTTPTransportConfiguration/maximumResponseBodySize``.
        case responseTooLarge
        /// The request cannot be sent (not an absolute http(s) URL, invalid method or header).
        case invalidRequest
        /// The transport was shut down.
        case shutDown
        /// Any other failure.
        case other
    }

    /// The kind of failure.
    public var kind: Kind
    /// What happened, for developers. Names the host, never a query, a header or a body.
    public var message: String
    /// The error from the HTTP stack, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    public var description: String { message }
}

extension HTTPTransportError {
    /// The error of `kind` in the wording every transport uses: the host, then `detail` (the HTTP stack's own words,
    /// never the URL's query, a header or a body) in parentheses.
    package static func describing(_ kind: Kind, host: String, timeout: Double, limit: Int, detail: String,
                                   underlying: (any Error & Sendable)? = nil) -> HTTPTransportError {
        let message: String
        switch kind {
        case .timedOut: return timedOut(host: host, timeout: timeout)
        case .cannotConnect: message = "No connection could be made to \(host)"
        case .hostNotFound: message = "The host name \(host) could not be resolved"
        case .connectionLost: message = "The connection to \(host) closed before the whole response arrived"
        case .secureConnectionFailed: message = "The TLS connection to \(host) failed (handshake failure)"
        case .untrustedCertificate: message = "The TLS certificate of \(host) is not trusted"
        case .proxyFailed: message = "The proxy refused the connection to \(host)"
        case .responseTooLarge: message = "The response from \(host) is larger than \(limit) bytes"
        case .invalidRequest: message = "The request to \(host) is not valid"
        case .shutDown: message = "The HTTP transport was shut down"
        case .other: message = "The request to \(host) failed"
        }
        return HTTPTransportError(kind, message + " (\(detail)).", underlying: underlying)
    }

    /// The timeout error every transport throws.
    package static func timedOut(host: String, timeout: Double) -> HTTPTransportError {
        HTTPTransportError(.timedOut, "The request to \(host) timed out after \(formatted(timeout)) s.")
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(format: "%.3g", seconds)
    }
}
