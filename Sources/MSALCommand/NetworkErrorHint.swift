import Foundation
import MSAL

/// The words `msal` adds to an error that failed on the network: the kind of failure and what to try, in terms of
/// the tool's own options.
enum NetworkErrorHint {
    /// `[network: <kind>] <what to try>`, or nil when `error` is not a network failure; `timeout` is the per-request
    /// timeout the tool used (named when the request timed out); `caFile` the CA file in use and where it was named
    /// (an untrusted certificate then means that file is not the server's CA).
    static func text(for error: MSALErrorInfo, timeout: TimeInterval? = nil,
                     caFile: (path: String, source: CAFileSource)? = nil) -> String? {
        guard let kind = error.networkErrorKind else { return nil }
        let advice: String
        switch kind {
        case .dnsFailure:
            advice = "The host name does not resolve: check the host in --authority (or MSAL_AUTHORITY) and the DNS settings."
        case .connectionRefused:
            advice = "Nothing accepted the connection: check the host and port in --authority, and that the server is running."
        case .tlsTrustFailure:
            if let caFile {
                advice = "The server's certificate is not signed by the CA in \(caFile.path) (from \(caFile.source.name)): an "
                    + "emulator makes a new CA each time it starts, so give the CA file the running one printed "
                    + "(msal login --ca-file <CA file>)."
            } else {
                advice = "The server's certificate is not trusted: pass --ca-file with its CA certificate (or set SSL_CERT_FILE)."
            }
        case .tlsFailure:
            advice = "The TLS handshake failed: check that the URL's port serves HTTPS, and any proxy in HTTPS_PROXY."
        case .timedOut:
            let limit = timeout.map { $0 == $0.rounded() ? "within \(Int($0)) s" : "within \($0) s" } ?? "in time"
            advice = "No answer \(limit): check the host in --authority, the network and any proxy in "
                + "HTTPS_PROXY; --timeout SECONDS (or MSAL_TIMEOUT) waits longer."
        case .connectionLost:
            advice = "The connection closed before an answer: if the port serves HTTPS, the URL must start with https:// "
                + "(check --authority or --graph-endpoint); otherwise retry."
        case .notConnected:
            advice = "There is no network connection."
        case .httpStatus:
            advice = error.httpStatusCode.map { "The server answered HTTP \($0)." } ?? "The server answered with an error status."
        case .other:
            advice = "Run with --debug to see the HTTP trace."
        }
        return "[network: \(kind.rawValue)] " + advice
    }
}
