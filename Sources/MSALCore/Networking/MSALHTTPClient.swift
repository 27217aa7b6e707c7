public import Foundation

/// One HTTP request MSAL sends to the identity provider.
public struct MSALHTTPRequest: Sendable {
    /// `GET` or `POST`.
    public var method: String
    /// The full URL, including the query.
    public var url: URL
    /// Request headers.
    public var headers: [String: String]
    /// The body (form-encoded for token requests), or nil.
    public var body: Data?
    /// The longest the whole exchange may take, in seconds (connecting, sending, and receiving the whole
    /// response). MSAL sets it from ``MSALHTTPConfig/timeoutIntervalForRequest``.
    public var timeout: TimeInterval

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 300) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response.
public struct MSALHTTPResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// Response headers; names are matched without regard to case by ``header(_:)``.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// The value of a header, matched without regard to case.
    public func header(_ name: String) -> String? {
        if let exact = headers[name] { return exact }
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }
}

/// The transport MSAL uses for every request to the identity provider.
///
/// The default is `MSALDefaultHTTPClient.shared`: `MSALCurlHTTPClient` on Linux, `MSALURLSessionHTTPClient`
/// on Apple platforms. Supply your own (through ``MSALPublicClientApplicationConfig/httpClient``) to route requests
/// through a network stack of your own, or to answer them in tests.
///
/// A transport must:
/// - never follow redirects: return a 3xx as a response (MSAL refuses it for identity-provider requests, and
///   ``MSALHTTPClient/sendFollowingRedirects(_:maximumRedirects:)`` follows it safely for resource requests);
/// - end each exchange within ``MSALHTTPRequest/timeout`` and throw (`URLError(.timedOut)` is what MSAL's own
///   transports throw);
/// - stop promptly when the calling task is cancelled, throwing `CancellationError` or `URLError(.cancelled)`;
/// - throw on transport failures (no connection, TLS failure) and return any HTTP status as a response; a `URLError`
///   with the failure's code (`cannotFindHost`, `cannotConnectToHost`, `serverCertificateUntrusted`,
///   `secureConnectionFailed`, `timedOut`, `networkConnectionLost`) lets MSAL report its ``MSALNetworkErrorKind``.
///
/// MSAL wraps the transport: every exchange is timed for the result's ``MSALResultMetadata`` and, at the verbose
/// log level, traced in one redacted line (see <doc:Diagnostics>).
public protocol MSALHTTPClient: Sendable {
    /// Sends `request` and returns the response, or throws on a transport failure.
    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse
}
