import Foundation

/// The transport every request of an application goes through: it wraps the configured ``MSALHTTPClient`` (any
/// transport, MSAL's own or the application's), times each exchange for the result's metadata
/// (``RequestDiagnostics``), and writes one redacted trace line per exchange at MSAL's verbose level
/// (``HTTPTraceLine``): method, scheme, host and path, status, duration, correlation and request ids, and what an
/// error answer or an id token may tell without giving anything away.
///
/// The line is built only when someone receives the verbose level (``MSALLog``): a quiet application pays for the
/// timing only.
struct TracingHTTPClient: MSALHTTPClient {
    let base: any MSALHTTPClient
    let log: MSALLog

    /// `http` traced to `log`; a client that is already traced is returned as it is.
    static func wrapping(_ http: any MSALHTTPClient, log: MSALLog) -> any MSALHTTPClient {
        if http is TracingHTTPClient { return http }
        return TracingHTTPClient(base: http, log: log)
    }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        let start = ContinuousClock.now
        do {
            let response = try await base.send(request)
            let elapsed = ContinuousClock.now - start
            RequestDiagnostics.current?.addHTTP(elapsed)
            if log.receives(.verbose) {
                requestLog(request).verbose(HTTPTraceLine.answered(request, response, elapsed: elapsed),
                                            pii: HTTPTraceLine.personalData(response))
            }
            return response
        } catch {
            let elapsed = ContinuousClock.now - start
            RequestDiagnostics.current?.addHTTP(elapsed)
            if log.receives(.verbose) { requestLog(request).verbose(HTTPTraceLine.failed(request, error, elapsed: elapsed)) }
            throw error
        }
    }

    /// The log with the request's correlation id, when it carries one.
    private func requestLog(_ request: MSALHTTPRequest) -> MSALLog {
        HTTPTraceLine.correlationId(of: request).map { log.with(correlationId: $0) } ?? log
    }
}
