import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    /// How long to wait for the response, in seconds.
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
/// The default is ``MSALURLSessionHTTPClient``. Supply your own (through
/// ``MSALPublicClientApplicationConfig/httpClient``) to route requests through a proxy stack of your own, or to
/// answer them in tests. Throw on transport failures (no connection, timeout); return any HTTP status as a response.
public protocol MSALHTTPClient: Sendable {
    /// Sends `request` and returns the response, or throws on a transport failure.
    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse
}

/// The default transport, on `URLSession`.
public struct MSALURLSessionHTTPClient: MSALHTTPClient {
    private let session: URLSession

    /// Creates a transport on `session` (an ephemeral session by default: no cookies, no URL cache).
    public init(session: URLSession? = nil) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration)
        }
    }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw MSALErrorInfo.internal(.internalErrorUnexpectedHttpResponse, "The response was not an HTTP response.")
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return MSALHTTPResponse(statusCode: http.statusCode, headers: headers, body: data)
    }
}
