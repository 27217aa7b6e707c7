public import Foundation
public import MSALCore

/// A transport on the system's libcurl (``HTTPTransport``): the default on Linux.
///
/// It never follows redirects, bounds every exchange by the request's timeout, stops at once when the calling task
/// is cancelled, waits without using CPU, reuses connections, and reads its trust roots (`SSL_CERT_FILE`,
/// `SSL_CERT_DIR`) and proxies (`HTTPS_PROXY`, `http_proxy`, `NO_PROXY`) from the environment once, when the
/// transport is created. See ``HTTPTransport`` for the details.
///
/// Failures are thrown as `URLError`, as `URLSession` would: `.timedOut`, `.cannotFindHost`, `.cannotConnectToHost`,
/// `.networkConnectionLost`, `.serverCertificateUntrusted`, `.secureConnectionFailed`, `.dataLengthExceedsMaximum`;
/// cancellation as `CancellationError`. MSAL reports each as its own `MSALNetworkErrorKind`.
public struct MSALCurlHTTPClient: MSALHTTPClient {
    /// The process-wide client on ``HTTPTransport/shared``: what MSAL uses by default on Linux.
    public static let shared = MSALCurlHTTPClient(transport: .shared)

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
        self.init(transport: HTTPTransport(configuration: .fromEnvironment(environment, adding: additionalTrustRootsPEM)))
    }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        do {
            return MSALHTTPResponse(try await transport.send(HTTPTransportRequest(request)))
        } catch let error as HTTPTransportError {
            throw error.urlError
        }
    }
}

extension HTTPTransportConfiguration {
    /// The environment's configuration (``fromEnvironment(_:)``) with `additionalTrustRootsPEM` trusted too.
    package static func fromEnvironment(_ environment: [String: String], adding additionalTrustRootsPEM: [String])
        -> HTTPTransportConfiguration {
        var configuration = fromEnvironment(environment)
        configuration.additionalTrustRootsPEM += additionalTrustRootsPEM
        return configuration
    }
}

extension HTTPTransportRequest {
    /// MSAL's request as a transport request: headers in name order, the timeout as MSAL bounds it.
    package init(_ request: MSALHTTPRequest) {
        self.init(method: request.method, url: request.url,
                  headers: request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
                  body: request.body, timeout: RequestTimeout.seconds(request.timeout))
    }
}

extension MSALHTTPResponse {
    /// A transport response as MSAL's: repeated header fields joined with ", " under the first spelling received.
    package init(_ response: HTTPTransportResponse) {
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
        self.init(statusCode: response.statusCode, headers: headers, body: response.body)
    }
}

extension HTTPTransportError {
    /// The `URLError` that `URLSession` would throw for this failure.
    package var urlError: URLError {
        let code: URLError.Code
        switch kind {
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
        return URLError(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
