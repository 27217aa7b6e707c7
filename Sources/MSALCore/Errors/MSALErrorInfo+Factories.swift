package import Foundation

/// The named kinds of error MSAL reports. Library code builds its errors through these, so that one kind of
/// failure always has one code, one internal code and one wording.
extension MSALErrorInfo {
    /// The request needs the user (``MSALError/interactionRequired``), optionally refined by `internalCode`
    /// (for example ``MSALInternalError/internalErrorAccountRequired`` when the account is not in the cache).
    package static func interactionRequired(_ description: String, internalCode: MSALInternalError? = nil,
                                            correlationId: UUID? = nil) -> MSALErrorInfo {
        MSALErrorInfo(.interactionRequired, internalCode: internalCode, description: description,
                      correlationId: correlationId)
    }

    /// The call was cancelled: ``MSALError/userCanceled`` with ``MSALInternalError/internalErrorSessionCanceled``,
    /// as MSAL reports a cancelled sign-in. `operation` names the call ("The silent token request").
    package static func cancelled(_ operation: String, correlationId: UUID?) -> MSALErrorInfo {
        MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                      description: "\(operation) was cancelled.", correlationId: correlationId)
    }

    /// The identity provider answered with an error, or with an unexpected status (``MSALError/serverError``).
    package static func server(_ description: String, status: Int? = nil, headers: [String: String]? = nil,
                               internalCode: MSALInternalError? = nil, correlationId: UUID?) -> MSALErrorInfo {
        var error = MSALErrorInfo(.serverError, internalCode: internalCode, description: description,
                                  correlationId: correlationId)
        error.httpStatusCode = status
        error.httpHeaders = headers
        return error
    }

    /// The identity provider could not be reached (``MSALError/serverError`` without an HTTP status).
    ///
    /// The description names the host and the kind of failure (timeout, refused connection, TLS...) only: never
    /// a path, a query or a body. The kind is also kept as ``MSALErrorInfo/networkErrorKind``. A `URLError` is kept as the underlying error with its code only (without the
    /// failing URL); any other error from an application's own transport is kept as it is.
    /// `service` names what could not be reached (the identity provider unless said: a resource such as Microsoft
    /// Graph for a caller's own request).
    package static func transport(_ error: any Error, host: String?, correlationId: UUID?,
                                  service: String = "The identity provider") -> MSALErrorInfo {
        let urlError = error as? URLError
        let kind = urlError.map { TransportFailure.kind($0.code) } ?? "the HTTP client failed"
        let target = host.map { "\(service) (\($0))" } ?? service
        let underlying: any Error = urlError.map(TransportFailure.withoutURL) ?? error
        var info = MSALErrorInfo(.serverError, description: "\(target) could not be reached: \(kind).",
                                 correlationId: correlationId, underlyingError: underlying)
        info.transportFailureKind = urlError.map { MSALNetworkErrorKind($0.code) } ?? .other
        return info
    }

    /// An error MSAL did not expect (``MSALInternalError/internalErrorUnexpected``), such as one of a type it does
    /// not know from an application's own component. The description names the error's domain and code only.
    package static func unexpected(_ error: any Error, correlationId: UUID?) -> MSALErrorInfo {
        let ns = error as NSError
        return .internal(.internalErrorUnexpected, "Unexpected error (\(ns.domain) \(ns.code)).",
                         correlationId: correlationId, underlyingError: error)
    }

    /// The server's answer could not be used (``MSALInternalError/internalErrorInvalidResponse``).
    package static func invalidResponse(_ description: String, correlationId: UUID?) -> MSALErrorInfo {
        .internal(.internalErrorInvalidResponse, description, correlationId: correlationId)
    }
}

/// Names the kinds of transport failure, in words that hold no request data.
enum TransportFailure {
    /// What went wrong, for a `URLError` code.
    static func kind(_ code: URLError.Code) -> String {
        switch code {
        case .timedOut: return "the request timed out"
        case .cannotConnectToHost: return "the connection was refused"
        case .cannotFindHost, .dnsLookupFailed: return "the host name could not be resolved"
        case .notConnectedToInternet: return "there is no network connection"
        case .networkConnectionLost: return "the connection was lost before the whole response arrived"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot:
            return "the server's TLS certificate is not trusted"
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return "the TLS connection failed (handshake failure)"
        case .dataLengthExceedsMaximum: return "the response was too large"
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return "the response could not be read"
        case .badURL, .unsupportedURL: return "the URL cannot be requested"
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return "the server redirected the request"
        default: return "network error \(code.rawValue)"
        }
    }

    /// `error` with its code only, described by ``kind(_:)``: the failing URL (and its query) and whatever the
    /// transport wrote into its description are dropped.
    static func withoutURL(_ error: URLError) -> URLError {
        URLError(error.code, userInfo: [NSLocalizedDescriptionKey: kind(error.code)])
    }
}
