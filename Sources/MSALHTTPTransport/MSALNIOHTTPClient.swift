public import Foundation
public import MSALCore

/// A transport on async-http-client and SwiftNIO: the default on Linux.
///
/// It never follows redirects, bounds every exchange by the request's timeout, stops at once when the calling task
/// is cancelled, waits without using CPU, reuses connections, and reads its trust roots (`SSL_CERT_FILE`,
/// `SSL_CERT_DIR`) and proxies (`HTTPS_PROXY`, `http_proxy`, `NO_PROXY`) from the environment once, when the
/// transport is created. See `HTTPTransport` in the `MSALHTTPTransport` module for the details.
///
/// Failures are thrown as `URLError`, as `URLSession` would: `.timedOut`, `.cannotFindHost`, `.cannotConnectToHost`,
/// `.networkConnectionLost`, `.serverCertificateUntrusted`, `.secureConnectionFailed`, `.dataLengthExceedsMaximum`;
/// cancellation as `CancellationError`. MSAL reports each as its own `MSALNetworkErrorKind`.
public struct MSALNIOHTTPClient: MSALHTTPClient {
    /// The process-wide client on `HTTPTransport.shared`: what MSAL uses by default on Linux.
    public static let shared = MSALNIOHTTPClient(transport: .shared)

    /// The transport requests go through.
    public let transport: HTTPTransport

    /// Creates a client on `transport`.
    public init(transport: HTTPTransport) {
        self.transport = transport
    }

    /// Creates a client with its own transport, configured from `environment`, that also trusts the certificate
    /// authorities in `additionalTrustRootsPEM` (such as the emulator's `caCertificatePEM`).
    ///
    /// The transport closes its connections when the last copy of this client is released; create one per
    /// application and keep it, rather than one per request.
    public init(additionalTrustRootsPEM: [String],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        var configuration = HTTPTransportConfiguration.fromEnvironment(environment)
        configuration.additionalTrustRootsPEM += additionalTrustRootsPEM
        self.init(transport: HTTPTransport(configuration: configuration))
    }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        let outgoing = HTTPTransportRequest(
            method: request.method, url: request.url,
            headers: request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
            body: request.body, timeout: RequestTimeout.seconds(request.timeout))
        let response: HTTPTransportResponse
        do {
            response = try await transport.send(outgoing)
        } catch let error as HTTPTransportError {
            throw Self.urlError(error)
        }
        var headers: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in response.headers {
            let key = name.lowercased()
            if let existing = spelling[key] {
                headers[existing] = (headers[existing] ?? "") + ", " + value
            } else {
                spelling[key] = name
                headers[name] = value
            }
        }
        return MSALHTTPResponse(statusCode: response.statusCode, headers: headers, body: response.body)
    }

    /// The `URLError` that `URLSession` would throw for `error`.
    static func urlError(_ error: HTTPTransportError) -> URLError {
        let code: URLError.Code
        switch error.kind {
        case .timedOut: code = .timedOut
        case .cannotConnect, .proxyFailed: code = .cannotConnectToHost
        case .hostNotFound: code = .cannotFindHost
        case .connectionLost: code = .networkConnectionLost
        case .secureConnectionFailed: code = .secureConnectionFailed
        case .untrustedCertificate: code = .serverCertificateUntrusted
        case .responseTooLarge: code = .dataLengthExceedsMaximum
        case .invalidRequest: code = .unsupportedURL
        case .shutDown, .other: code = .unknown
        }
        return URLError(code, userInfo: [NSLocalizedDescriptionKey: error.message])
    }
}
