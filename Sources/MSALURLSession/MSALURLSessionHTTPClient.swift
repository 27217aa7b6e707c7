import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
public import MSALCore

/// A transport on `URLSession`: the default on Apple platforms.
///
/// It never follows redirects (a 3xx comes back as a response), ends every exchange within the request's
/// timeout (throwing `URLError(.timedOut)`), and stops when the calling task is cancelled.
///
/// On Linux prefer `MSALCurlHTTPClient` (the default there): FoundationNetworking keeps a CPU core busy while it
/// waits for an answer, and ignores a request's own timeout (this type enforces it with a timer instead).
public struct MSALURLSessionHTTPClient: MSALHTTPClient {
    /// One client on one ephemeral session, for the whole process.
    public static let shared = MSALURLSessionHTTPClient()

    private let session: URLSession

    /// Creates a transport on `session`, or on a new ephemeral session (no cookies, no URL cache) that refuses
    /// redirects.
    ///
    /// A session you pass should refuse redirects itself (its delegate's
    /// `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` answering nil): this type also
    /// installs a per-request delegate that does so, which Apple platforms honour but FoundationNetworking does not.
    /// Each session keeps its delegate until invalidated: create one client and reuse it.
    public init(session: URLSession? = nil) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration, delegate: RedirectRefusingDelegate.shared,
                                      delegateQueue: nil)
        }
    }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        let seconds = RequestTimeout.seconds(request.timeout)
        var urlRequest = URLRequest(url: request.url, timeoutInterval: seconds)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let session = self.session
        let finalRequest = urlRequest
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await RequestTimeout.run(seconds, host: request.url.host) {
                try await session.data(for: finalRequest, delegate: RedirectRefusingDelegate.shared)
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw URLErrorTrust.refined(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw MSALErrorInfo.internal(.internalErrorUnexpectedHttpResponse, "The response was not an HTTP response.")
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return MSALHTTPResponse(statusCode: http.statusCode, headers: headers, body: data)
    }
}

/// Answers every redirect with "do not follow", so that the 3xx is delivered as the response.
final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    static let shared = RedirectRefusingDelegate()

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
