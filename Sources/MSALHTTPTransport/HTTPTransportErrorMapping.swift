import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Turns errors from async-http-client, NIO and NIOSSL into ``HTTPTransportError``.
enum HTTPTransportErrorMapping {
    static func timedOut(host: String, timeout: Double) -> HTTPTransportError {
        HTTPTransportError(.timedOut, "The request to \(host) timed out after \(formatted(timeout)) s.")
    }

    static func map(_ error: any Error, host: String, timeout: Double, limit: Int) -> HTTPTransportError {
        if let error = error as? HTTPTransportError { return error }
        let kind = kind(of: error)
        let message: String
        switch kind {
        case .timedOut: return timedOut(host: host, timeout: timeout)
        case .cannotConnect: message = "No connection could be made to \(host)"
        case .connectionLost: message = "The connection to \(host) closed before the whole response arrived"
        case .secureConnectionFailed: message = "The TLS connection to \(host) failed (untrusted certificate or handshake failure)"
        case .proxyFailed: message = "The proxy refused the connection to \(host)"
        case .responseTooLarge: message = "The response from \(host) is larger than \(limit) bytes"
        case .invalidRequest: message = "The request to \(host) is not valid"
        case .shutDown: message = "The HTTP transport was shut down"
        case .other: message = "The request to \(host) failed"
        }
        return HTTPTransportError(kind, message + " (\(detail(error))).", underlying: error)
    }

    static func kind(of error: any Error) -> HTTPTransportError.Kind {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                 .httpProxyHandshakeTimeout, .socksHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .timedOut
            case .remoteConnectionClosed, .bodyLengthMismatch, .contentLengthMissing:
                return .connectionLost
            case .proxyAuthenticationRequired, .invalidProxyResponse:
                return .proxyFailed
            case .alreadyShutdown:
                return .shutDown
            case .invalidURL, .emptyHost, .emptyScheme, .traceRequestWithBody:
                return .invalidRequest
            default:
                return .other
            }
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError { return .secureConnectionFailed }
        if error is NIOConnectionError || error is IOError { return .cannotConnect }
        if let error = error as? ChannelError {
            if case .connectTimeout = error { return .timedOut }
            return .connectionLost
        }
        if error is NIOTooManyBytesError { return .responseTooLarge }
        return .other
    }

    /// The error's type and case, never its payload beyond what NIO prints for it (no request data).
    private static func detail(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(format: "%.3g", seconds)
    }
}
