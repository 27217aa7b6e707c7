import AsyncHTTPClient
import Foundation
import MSALHTTPTransport
import NIOCore
import NIOPosix
import NIOSSL

/// Turns errors from async-http-client, NIO and NIOSSL into ``HTTPTransportError``.
enum NIOErrorMapping {
    static func map(_ error: any Error, host: String, timeout: Double, limit: Int) -> HTTPTransportError {
        if let error = error as? HTTPTransportError { return error }
        return HTTPTransportError.describing(kind(of: error), host: host, timeout: timeout, limit: limit,
                                             detail: detail(error), underlying: error)
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
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return isTrustFailure(error) ? .untrustedCertificate : .secureConnectionFailed
        }
        if let error = error as? NIOConnectionError {
            // Name resolution failed when no address was tried at all.
            let resolutionFailed = error.dnsAError != nil || error.dnsAAAAError != nil
            return resolutionFailed && error.connectionErrors.isEmpty ? .hostNotFound : .cannotConnect
        }
        if error is SocketAddressError || error is SocketAddressError.UnknownHost { return .hostNotFound }
        if error is IOError { return .cannotConnect }
        if let error = error as? ChannelError {
            if case .connectTimeout = error { return .timedOut }
            return .connectionLost
        }
        if error is NIOTooManyBytesError { return .responseTooLarge }
        return .other
    }

    /// Whether a TLS error means the server's certificate was not trusted (unknown authority, expired, or issued
    /// for another name), as opposed to a handshake that failed for another reason.
    static func isTrustFailure(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError {
            return extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch
        }
        if let ssl = error as? NIOSSLError, case .unableToValidateCertificate = ssl { return true }
        // BoringSSL reports verification failures in its error stack (`CERTIFICATE_VERIFY_FAILED`).
        return String(describing: error).uppercased().contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// The error's type and case, never its payload beyond what NIO prints for it (no request data).
    private static func detail(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
