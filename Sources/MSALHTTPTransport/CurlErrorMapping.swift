import Foundation

/// Turns a libcurl result (CURLcode) into ``HTTPTransportError``, worded as every transport words its errors
/// (``HTTPTransportError/describing(_:host:timeout:limit:detail:underlying:)``).
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

}
