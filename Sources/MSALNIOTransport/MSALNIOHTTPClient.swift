public import Foundation
public import MSALCore
import MSALHTTPTransport

/// A transport on async-http-client and SwiftNIO (``NIOHTTPTransport``), for apps that build SwiftNIO anyway and
/// want one event loop for everything: trait `NIOTransport`, product `MSALNIOTransport`. Linux's default is
/// `MSALCurlHTTPClient`; both keep the same promises (no redirects followed, the request's timeout bounds the whole
/// exchange, cancellation at once, no CPU while waiting, connection reuse, trust roots and proxies from the
/// environment).
///
/// Failures are thrown as `URLError`, as `URLSession` would; cancellation as `CancellationError`.
public struct MSALNIOHTTPClient: MSALHTTPClient {
    /// The process-wide client on ``NIOHTTPTransport/shared``.
    public static let shared = MSALNIOHTTPClient(transport: .shared)

    /// The transport requests go through.
    public let transport: NIOHTTPTransport

    /// Creates a client on `transport`.
    public init(transport: NIOHTTPTransport) {
        self.transport = transport
    }

    /// Creates a client with its own transport, configured from `environment`, that also trusts the certificate
    /// authorities in `additionalTrustRootsPEM` (such as the emulator's `caCertificatePEM`).
    public init(additionalTrustRootsPEM: [String],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(transport: NIOHTTPTransport(configuration: .fromEnvironment(environment, adding: additionalTrustRootsPEM)))
    }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        do {
            return MSALHTTPResponse(try await transport.send(HTTPTransportRequest(request)))
        } catch let error as HTTPTransportError {
            throw error.urlError
        }
    }
}
