import Foundation

/// Turns a libcurl result (CURLcode) into ``HTTPTransportError``, with the wording of every transport's errors.
package enum CurlErrorMapping {
    /// The kind of failure for `code`; `proxyRefused` when a proxy answered the tunnel with a status other than 2xx.
    package static func kind(of code: Int32, proxyRefused: Bool, bodyOverflowed: Bool) -> HTTPTransportError.Kind {
        if proxyRefused { return .proxyFailed }
        switch code {
        case 28: return .timedOut                                   // OPERATION_TIMEDOUT
        case 6: return .hostNotFound                                // COULDNT_RESOLVE_HOST
        case 5, 97: return .proxyFailed                             // COULDNT_RESOLVE_PROXY, PROXY
        case 7: return .cannotConnect                               // COULDNT_CONNECT
        case 60, 83, 90, 91: return .untrustedCertificate           // PEER_FAILED_VERIFICATION, ISSUER_ERROR, ...
        case 35, 58, 59, 64, 66, 77, 80, 98: return .secureConnectionFailed
        case 8, 16, 18, 52, 55, 56, 92: return .connectionLost      // WEIRD_SERVER_REPLY, HTTP2, PARTIAL_FILE, ...
        case 23 where bodyOverflowed, 63: return .responseTooLarge  // WRITE_ERROR past the limit, FILESIZE_EXCEEDED
        case 1, 3: return .invalidRequest                           // UNSUPPORTED_PROTOCOL, URL_MALFORMAT
        default: return .other
        }
    }

    /// The error for `code`, naming the host and libcurl's description (never the URL's query, a header or a body).
    package static func error(_ code: Int32, description: String, host: String, timeout: Double, limit: Int,
                              proxyRefused: Bool, bodyOverflowed: Bool) -> HTTPTransportError {
        HTTPTransportError.describing(kind(of: code, proxyRefused: proxyRefused, bodyOverflowed: bodyOverflowed),
                                      host: host, timeout: timeout, limit: limit,
                                      detail: "libcurl \(code): \(description)")
    }

    /// The timeout error every transport throws.
    package static func timedOut(host: String, timeout: Double) -> HTTPTransportError {
        HTTPTransportError(.timedOut, "The request to \(host) timed out after \(formatted(timeout)) s.")
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(format: "%.3g", seconds)
    }
}

extension HTTPTransportError {
    /// The error of `kind` in the wording every transport uses: the host, then `detail` (the HTTP stack's own words,
    /// never the URL's query, a header or a body) in parentheses.
    package static func describing(_ kind: Kind, host: String, timeout: Double, limit: Int, detail: String,
                                   underlying: (any Error & Sendable)? = nil) -> HTTPTransportError {
        let message: String
        switch kind {
        case .timedOut: return CurlErrorMapping.timedOut(host: host, timeout: timeout)
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
}
