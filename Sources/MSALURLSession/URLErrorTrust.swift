import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tells TLS trust failures from other TLS failures in the errors `URLSession` throws.
///
/// Apple platforms report some untrusted certificates as `secureConnectionFailed` with the Secure Transport
/// status in `_kCFStreamErrorCodeKey`; those become `serverCertificateUntrusted`, so that MSAL reports them as
/// `MSALNetworkErrorKind.tlsTrustFailure`. Every other error is returned as it is.
enum URLErrorTrust {
    /// Secure Transport statuses that mean the certificate chain or name was not trusted: an invalid chain, no or
    /// an unknown root, expired or not yet valid, a host name mismatch.
    static let trustStatuses: Set<Int> = [-9807, -9812, -9813, -9814, -9815, -9843]

    /// `error`, with a trust failure reported as `URLError(.serverCertificateUntrusted)`.
    static func refined(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError, urlError.code == .secureConnectionFailed,
              let status = urlError.userInfo["_kCFStreamErrorCodeKey"] as? Int, trustStatuses.contains(status) else {
            return error
        }
        var info = urlError.userInfo
        info[NSLocalizedDescriptionKey] = "The server's TLS certificate is not trusted."
        return URLError(.serverCertificateUntrusted, userInfo: info)
    }
}
