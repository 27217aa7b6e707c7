import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSAL
@testable import MSALCore
import MSALEmulator
import MSALTesting

/// Counts the requests an application sends, and passes them to the real transport.
typealias CountingHTTPClient = MSALRecordingHTTPClient

extension MSALRecordingHTTPClient {
    /// A recorder in front of MSAL's default transport.
    convenience init() { self.init(forwardingTo: MSALDefaultHTTPClient.shared) }
    /// How many token requests were sent.
    var tokenRequests: Int { count(pathSuffix: "/oauth2/v2.0/token") }
}

/// GETs a URL without following redirects.
enum NoRedirectFetcher {
    final class Delegate: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    static func fetch(_ url: URL, headers: [String: String] = [:]) async throws -> (Int, [String: String], Data) {
        let session = URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var result: [String: String] = [:]
        for (key, value) in http?.allHeaderFields ?? [:] {
            if let key = key as? String, let value = value as? String { result[key.lowercased()] = value }
        }
        return (http?.statusCode ?? 0, result, data)
    }
}

/// An emulator with auto-approval for `username` (the default user when nil).
func startEmulator(autoApprove username: String? = nil) async throws -> IdentityEmulator {
    var configuration = EmulatorConfiguration.default
    configuration.autoApproveUsername = username ?? configuration.defaults.username
    return try await IdentityEmulator.start(configuration)
}
