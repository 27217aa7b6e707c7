public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// GETs a URL without following redirects (to see an emulator's or a server's redirect itself).
public enum NoRedirectFetcher {
    final class Delegate: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    /// A session of its own that never follows a redirect (invalidate it when done).
    public static func makeSession() -> URLSession {
        URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: nil)
    }

    /// The status, the headers (names lower-cased) and the body of `request`'s answer.
    public static func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
        let session = makeSession()
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http?.allHeaderFields ?? [:] {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return (http?.statusCode ?? 0, headers, data)
    }

    /// GETs `url` with `headers`.
    public static func fetch(_ url: URL, headers: [String: String] = [:]) async throws -> (Int, [String: String], Data) {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (status, answerHeaders, body) = try await send(request)
        return (status, answerHeaders, body)
    }
}
