import Foundation
public import MSALCore

/// A transport for tests: it records every request an application sends, and answers each with a handler — canned
/// responses, or another transport (``init(forwardingTo:)``) such as the one that reaches the emulator.
///
/// ```swift
/// let http = MSALRecordingHTTPClient(forwardingTo: MSALDefaultHTTPClient.shared)
/// config.httpClient = http
/// // ... run the flow ...
/// #expect(http.count(pathSuffix: "/oauth2/v2.0/token") == 1)
/// ```
public final class MSALRecordingHTTPClient: MSALHTTPClient, Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (MSALHTTPRequest) async throws -> MSALHTTPResponse

    private let log = LockedBox<[MSALHTTPRequest]>([])
    private let handler: LockedBox<Handler>

    /// A client that answers with `handler`.
    public init(_ handler: @escaping Handler) { self.handler = LockedBox(handler) }

    /// A client that passes every request on to `inner`.
    public convenience init(forwardingTo inner: any MSALHTTPClient) {
        self.init { request in try await inner.send(request) }
    }

    /// The requests sent so far, oldest first.
    public var requests: [MSALHTTPRequest] { log.get() }
    /// The paths of the requests sent so far.
    public var paths: [String] { requests.map(\.url.path) }
    /// How many requests went to a path ending with `pathSuffix`.
    public func count(pathSuffix: String) -> Int { requests.filter { $0.url.path.hasSuffix(pathSuffix) }.count }
    /// Answers the next requests with `new`.
    public func setHandler(_ new: @escaping Handler) { handler.set(new) }
    /// Forgets the requests recorded so far.
    public func reset() { log.set([]) }

    public func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        log.withLock { $0.append(request) }
        return try await handler.get()(request)
    }
}
