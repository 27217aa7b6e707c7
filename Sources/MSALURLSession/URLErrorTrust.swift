import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tells TLS trust failures from other TLS failures in the errors `URLSession` throws.
///
/// Apple platforms report some untrusted certificates as `secureConnectionFailed` with the Secure Transport
/// status in `_kCFStreamErrorCodeKey`; FoundationNetworking on Linux reports every TLS failure as code `-1` (unknown)
/// with libcurl's message ("SSL certificate problem: ...", "SSL: no alternative certificate subject name matches
/// ..."). Those become `serverCertificateUntrusted` (or `secureConnectionFailed` for other TLS failures), so that MSAL
/// reports them as `MSALNetworkErrorKind.tlsTrustFailure` (`tlsFailure`). Every other error is returned as it is.
enum URLErrorTrust {
    /// Secure Transport statuses that mean the certificate chain or name was not trusted: an invalid chain, no or
    /// an unknown root, expired or not yet valid, a host name mismatch.
    static let trustStatuses: Set<Int> = [-9807, -9812, -9813, -9814, -9815, -9843]

    /// `error`, with a trust failure reported as `URLError(.serverCertificateUntrusted)`.
    static func refined(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else { return error }
        switch urlError.code {
        case .secureConnectionFailed:
            guard let status = urlError.userInfo["_kCFStreamErrorCodeKey"] as? Int, trustStatuses.contains(status) else {
                return error
            }
            return URLError(.serverCertificateUntrusted, userInfo: urlError.userInfo)
        case .unknown:
            let message = urlError.localizedDescription
            if message.hasPrefix("SSL certificate problem") || message.contains("certificate subject name")
                || message.contains("SSL peer certificate") {
                return URLError(.serverCertificateUntrusted, userInfo: urlError.userInfo)
            }
            if message.hasPrefix("SSL") || message.contains("TLS") {
                return URLError(.secureConnectionFailed, userInfo: urlError.userInfo)
            }
            return error
        default:
            return error
        }
    }
}
