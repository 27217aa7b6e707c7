public import Foundation

/// The `userInfo` key of ``MSALErrorInfo/networkErrorKind`` when the error is bridged to `NSError`: the kind's
/// raw value, such as `"connection_refused"`.
public let MSALNetworkErrorKindKey = "MSALNetworkErrorKindKey"

/// Why a request to the identity provider failed on the way, before or instead of an OAuth answer.
///
/// MSAL reports these failures as ``MSALError/serverError``; ``MSALErrorInfo/networkErrorKind`` says which one it
/// was, so that an application (or a person reading a log) can tell a name that does not resolve from a server that
/// refuses connections, an untrusted certificate, a timeout, or a server that answered with an error status:
///
/// ```swift
/// catch let error as MSALErrorInfo {
///     switch error.networkErrorKind {
///     case .tlsTrustFailure?: print("The server's certificate is not trusted; check the CA bundle.")
///     case .timedOut?: print("No answer in time; retry later.")
///     case .httpStatus?: print("The server answered HTTP \(error.httpStatusCode ?? 0).")
///     default: print(error)
///     }
/// }
/// ```
///
/// MSAL's own transports report the kinds as `URLError` codes (`cannotFindHost`, `cannotConnectToHost`,
/// `serverCertificateUntrusted`, `secureConnectionFailed`, `timedOut`, ...); a transport of your own
/// (``MSALHTTPClient``) gets the same kinds by throwing the same codes.
public enum MSALNetworkErrorKind: String, Sendable, CaseIterable {
    /// The host name could not be resolved (no such name, or no DNS answer).
    case dnsFailure = "dns_failure"
    /// The host was found but refused the connection (nothing listens on the port) or could not be reached.
    case connectionRefused = "connection_refused"
    /// TLS failed because the server's certificate is not trusted: an unknown certificate authority, a name that
    /// does not match the host, or a certificate out of its validity period.
    case tlsTrustFailure = "tls_trust_failure"
    /// TLS failed for another reason (handshake failure, no common protocol or cipher).
    case tlsFailure = "tls_failure"
    /// No complete answer arrived within the request's timeout (``MSALHTTPConfig/timeoutIntervalForRequest``).
    case timedOut = "timed_out"
    /// The connection closed before the whole response arrived.
    case connectionLost = "connection_lost"
    /// The device has no network connection.
    case notConnected = "not_connected"
    /// The server answered with an HTTP error status and no OAuth error (see ``MSALErrorInfo/httpStatusCode``),
    /// or with a server error (5xx) that persisted through the retries.
    case httpStatus = "http_status"
    /// Any other transport failure (the response could not be read, it was too large, the transport failed).
    case other

    /// The kind of a `URLError` code, as MSAL's transports throw them.
    public init(_ code: URLError.Code) {
        switch code {
        case .cannotFindHost, .dnsLookupFailed: self = .dnsFailure
        case .cannotConnectToHost: self = .connectionRefused
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid:
            self = .tlsTrustFailure
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired: self = .tlsFailure
        case .timedOut: self = .timedOut
        case .networkConnectionLost: self = .connectionLost
        case .notConnectedToInternet: self = .notConnected
        default: self = .other
        }
    }

    /// What happened, in words, with what usually helps.
    public var explanation: String {
        switch self {
        case .dnsFailure: return "the host name could not be resolved; check the authority's host name and the DNS settings"
        case .connectionRefused: return "the connection was refused; check the host and port, and that the server is running"
        case .tlsTrustFailure: return "the server's TLS certificate is not trusted; trust its certificate authority (a CA bundle in SSL_CERT_FILE, or the application's trust roots)"
        case .tlsFailure: return "the TLS handshake failed"
        case .timedOut: return "no answer arrived in time; retry, or raise the request timeout"
        case .connectionLost: return "the connection closed before the whole response arrived; retry"
        case .notConnected: return "there is no network connection"
        case .httpStatus: return "the server answered with an HTTP error status"
        case .other: return "the request failed on the way"
        }
    }
}

extension MSALErrorInfo {
    /// Why the request failed on the way, when it did: a transport failure (DNS, refused connection, TLS trust,
    /// timeout...) or an HTTP error status without an OAuth error. Nil for errors that are not network failures,
    /// such as an OAuth error the identity provider returned (`invalid_grant`) or a cache error.
    public var networkErrorKind: MSALNetworkErrorKind? {
        if let transportFailureKind { return transportFailureKind }
        guard httpStatusCode != nil, code == .serverError || oauthError == nil else { return nil }
        return .httpStatus
    }
}
