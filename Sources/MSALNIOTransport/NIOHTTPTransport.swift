import AsyncHTTPClient
import Foundation
public import MSALHTTPTransport
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// An HTTP client for identity-provider and API requests, on async-http-client and SwiftNIO: the same promises as
/// ``HTTPTransport`` (the libcurl transport, Linux's default), for apps that already build SwiftNIO (trait
/// `NIOTransport`).
///
/// - Redirects are never followed: a 3xx comes back as a response, for the caller to refuse or to follow under its
///   own rules.
/// - Every request is bounded by its own ``HTTPTransportRequest/timeout`` (connection, response head and whole
///   body). Waiting costs no CPU: NIO waits in `epoll`/`kqueue`.
/// - Cancelling the calling task cancels the request at once (the connection is closed); the call throws
///   `CancellationError`.
/// - Connections are reused (HTTP/1.1 keep-alive, HTTP/2 when the server offers it).
///
/// Lifecycle: ``shared`` lives for the whole process and is never shut down (it runs on NIO's process-wide event
/// loop group, so it owns no thread). An instance you create owns its connections: call ``shutdown()`` when done;
/// if you do not, releasing the last reference closes them in the background, so an instance never leaks or traps.
public final class NIOHTTPTransport: Sendable {
    /// The process-wide transport, configured from the environment when first used
    /// (``HTTPTransportConfiguration/fromEnvironment(_:)``). ``shutdown()`` does nothing on it.
    public static let shared = NIOHTTPTransport(configuration: .fromEnvironment(), isShared: true)

    /// What this transport trusts and where it connects through.
    public let configuration: HTTPTransportConfiguration

    /// The TLS configuration (nil: async-http-client's default), or why `https` cannot work with this configuration
    /// (unreadable trust store, bad PEM). Built on first use: a process that never connects never reads a trust store.
    private let trust = NIOLockedValueBox<Result<TLSConfiguration?, HTTPTransportError>?>(nil)
    private let isShared: Bool
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// One client per route: direct (nil) or through a proxy. Created on first use.
        var clients: [HTTPProxySettings.Server?: HTTPClient] = [:]
        var shutDown = false
    }

    /// Creates a transport. Call ``shutdown()`` when it is no longer needed.
    public convenience init(configuration: HTTPTransportConfiguration = HTTPTransportConfiguration()) {
        self.init(configuration: configuration, isShared: false)
    }

    private init(configuration: HTTPTransportConfiguration, isShared: Bool) {
        self.configuration = configuration
        self.isShared = isShared
    }

    /// The TLS configuration, built once.
    private func tlsConfiguration() -> Result<TLSConfiguration?, HTTPTransportError> {
        trust.withLockedValue { cached in
            if let cached { return cached }
            let built: Result<TLSConfiguration?, HTTPTransportError>
            do {
                built = .success(try Self.makeTLS(configuration))
            } catch {
                built = .failure(HTTPTransportError(.secureConnectionFailed,
                                                    "The configured trust roots cannot be used (\(Self.summary(error))).",
                                                    underlying: error))
            }
            cached = built
            return built
        }
    }

    deinit {
        for client in takeClientsForShutdown() {
            client.shutdown(queue: .global()) { _ in }
        }
    }

    /// Closes every connection. Later requests fail with ``HTTPTransportError/Kind/shutDown``. Does nothing on
    /// ``shared``.
    public func shutdown() async throws {
        guard !isShared else { return }
        for client in takeClientsForShutdown() {
            try await client.shutdown()
        }
    }

    /// Sends `request` and returns the response with its whole body.
    ///
    /// - Throws: ``HTTPTransportError`` for transport failures (including the timeout); `CancellationError` when
    ///   the calling task is cancelled. Any HTTP status is a response.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = request.url.host, !host.isEmpty else {
            throw HTTPTransportError(.invalidRequest, "Only absolute http and https URLs can be requested.")
        }
        if scheme == "https", case .failure(let problem) = tlsConfiguration() { throw problem }
        let client = try client(for: configuration.proxy.server(scheme: scheme, host: host))
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let seconds = request.boundedTimeout
        let limit = configuration.maximumResponseBodySize
        let prepared = outgoing
        do {
            return try await Self.within(seconds, host: host) {
                do {
                    return try await Self.exchange(prepared, on: client, seconds: seconds, limit: limit)
                } catch let error as ChannelError where error == .ioOnClosedChannel {
                    // A pooled connection the server had closed before the request could be written: nothing was
                    // sent, so the request goes once more, on a new connection (within the same deadline).
                    return try await Self.exchange(prepared, on: client, seconds: seconds, limit: limit)
                }
            }
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw NIOErrorMapping.map(error, host: host, timeout: seconds, limit: limit)
        }
    }

    // MARK: Internals

    /// One request and its whole body.
    private static func exchange(_ request: HTTPClientRequest, on client: HTTPClient, seconds: Double,
                                 limit: Int) async throws -> HTTPTransportResponse {
        let response = try await client.execute(request, timeout: .nanoseconds(nanoseconds(seconds)))
        let body = try await response.body.collect(upTo: limit)
        return HTTPTransportResponse(statusCode: Int(response.status.code),
                                     headers: response.headers.map { (name: $0.name, value: $0.value) },
                                     body: Data(body.readableBytesView))
    }

    /// Runs `operation`, failing with a timeout when it has not finished after `seconds`. The timer is a sleeping
    /// child task: no CPU while waiting. async-http-client's own deadline covers only the response head.
    private static func within<T: Sendable>(_ seconds: Double, host: String,
                                            _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(Self.nanoseconds(seconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw HTTPTransportError.timedOut(host: host, timeout: seconds)
            }
            return value
        }
    }

    private func client(for proxy: HTTPProxySettings.Server?) throws -> HTTPClient {
        try state.withLockedValue { state in
            if state.shutDown { throw HTTPTransportError(.shutDown, "The HTTP transport was shut down.") }
            if let existing = state.clients[proxy] { return existing }
            let created = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                     configuration: clientConfiguration(proxy: proxy))
            state.clients[proxy] = created
            return created
        }
    }

    private func clientConfiguration(proxy: HTTPProxySettings.Server?) -> HTTPClient.Configuration {
        let connect = configuration.boundedConnectTimeout
        let idle = configuration.boundedIdleConnectionTimeout
        var result = HTTPClient.Configuration(
            tlsConfiguration: try? tlsConfiguration().get(),
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .nanoseconds(Self.nanoseconds(connect))),
            connectionPool: HTTPClient.Configuration.ConnectionPool(idleTimeout: .nanoseconds(Self.nanoseconds(idle))),
            proxy: proxy.map { server in
                let authorization = server.username.map {
                    HTTPClient.Authorization.basic(username: $0, password: server.password ?? "")
                }
                return .server(host: server.host, port: server.port, authorization: authorization)
            },
            decompression: .disabled)
        result.httpVersion = .automatic
        // A connection that cannot be made fails its request at once (the caller decides about retrying) instead
        // of being retried with back-off until the request's deadline.
        result.connectionPool.retryConnectionEstablishment = false
        return result
    }

    /// Marks the transport shut down and hands back the clients to close (none for ``shared``).
    private func takeClientsForShutdown() -> [HTTPClient] {
        guard !isShared else { return [] }
        return state.withLockedValue { state in
            if state.shutDown { return [] }
            state.shutDown = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
    }

    /// The TLS configuration for `configuration`, or nil for async-http-client's default (the system's store).
    private static func makeTLS(_ configuration: HTTPTransportConfiguration) throws -> TLSConfiguration? {
        if configuration.trustRoots == .system && configuration.additionalTrustRootsPEM.isEmpty { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if case .locations(let file, let directory) = configuration.trustRoots {
            for path in [file, directory].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: path) {
                throw HTTPTransportError(.secureConnectionFailed, "\(path) cannot be read")
            }
            // One location is the trust store (a directory is read lazily, by hash); a bundle file next to a
            // directory is loaded as additional certificates (additional roots cannot be a directory).
            if let directory {
                tls.trustRoots = .file(directory)
                if let file { tls.additionalTrustRoots.append(.certificates(try NIOSSLCertificate.fromPEMFile(file))) }
            } else if let file {
                tls.trustRoots = .file(file)
            }
        }
        var extra: [NIOSSLCertificate] = []
        for pem in configuration.additionalTrustRootsPEM {
            extra += try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        }
        if !extra.isEmpty { tls.additionalTrustRoots.append(.certificates(extra)) }
        // Load the roots now, so that a bad bundle is reported once, clearly, instead of at every connection.
        _ = try NIOSSLContext(configuration: tls)
        return tls
    }

    static func summary(_ error: any Error) -> String {
        (error as? HTTPTransportError)?.message ?? String(describing: type(of: error))
    }

    /// Seconds as nanoseconds for NIO and `Task.sleep`: NaN and negative values give 0, at most one day.
    static func nanoseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64(min(seconds, 86_400) * 1e9)
    }
}
