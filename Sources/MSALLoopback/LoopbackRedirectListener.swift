import NIOCore
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP listener for the redirect of one interactive sign-in (RFC 8252 §7.3, §8.3, §8.9).
///
/// It binds the loopback interface only (127.0.0.1, else [::1]) on an ephemeral or configured port, and accepts the
/// one request whose path equals the redirect path and whose `state` matches — a `GET` with the parameters in the
/// query, or an `application/x-www-form-urlencoded` `POST` (`response_mode=form_post`). Other paths are answered
/// 404 and a matching path with a wrong or missing `state` 400; neither ends the wait. Each connection gets a small
/// HTML page (never echoing the parameters) and is closed; requests are limited in size and time. The port is
/// closed as soon as the response arrives, the wait ends, or ``close()`` is called.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start(LoopbackConfiguration(path: "/", expectedState: state))
/// let redirectUri = "http://localhost:\(listener.port)"
/// // ... open the authorization URL with this redirect URI ...
/// let response = try await listener.waitForRedirect(timeout: .seconds(300))
/// ```
public final class LoopbackRedirectListener: Sendable {
    /// The port the listener is bound to.
    public let port: Int
    /// The loopback address the listener is bound to (`127.0.0.1` or `::1`).
    public let address: String
    /// The configuration it listens with.
    public let configuration: LoopbackConfiguration

    /// Every loopback address the listener is bound to (several for ``LoopbackConfiguration/bindsEveryAddress``).
    public let addresses: [String]

    private let serverChannels: [any Channel]
    private var serverChannel: any Channel { serverChannels[0] }
    private let state: LoopbackWaitState

    private init(serverChannels: [any Channel], addresses: [String], port: Int, configuration: LoopbackConfiguration,
                 state: LoopbackWaitState) {
        self.serverChannels = serverChannels
        self.addresses = addresses
        self.address = addresses[0]
        self.port = port
        self.configuration = configuration
        self.state = state
    }

    /// Binds the first of the configured loopback addresses that accepts the port and starts accepting requests.
    ///
    /// - Throws: ``LoopbackListenerError/bindFailed(_:)`` when no address could be bound.
    public static func start(_ configuration: LoopbackConfiguration) async throws -> LoopbackRedirectListener {
        if configuration.bindsEveryAddress { return try await startOnEveryAddress(configuration) }
        let state = LoopbackWaitState()
        var failures: [String] = []
        for address in configuration.bindAddresses {
            do {
                let (channel, port) = try await bind(address, port: configuration.port, configuration, state: state)
                state.listen(on: channel)
                return LoopbackRedirectListener(serverChannels: [channel], addresses: [address], port: port,
                                                configuration: configuration, state: state)
            } catch {
                failures.append("\(address): \(error)")
            }
        }
        throw LoopbackListenerError.bindFailed(failures)
    }

    /// Binds every configured address on one port. With an ephemeral port, a port that another process holds on
    /// one of the addresses is given up and another is tried (a few times); with a fixed port that is a failure.
    private static func startOnEveryAddress(_ configuration: LoopbackConfiguration) async throws -> LoopbackRedirectListener {
        var failures: [String] = []
        for _ in 0..<8 {
            let state = LoopbackWaitState()
            var channels: [any Channel] = []
            var bound: [String] = []
            var port = configuration.port
            var retry = false
            for address in configuration.bindAddresses {
                do {
                    let (channel, local) = try await bind(address, port: port, configuration, state: state)
                    port = local
                    channels.append(channel)
                    bound.append(address)
                } catch let error as IOError where !channels.isEmpty && Self.familyUnavailable(error.errnoCode) {
                    failures.append("\(address): \(error) (skipped: the system lacks this address family)")
                } catch {
                    failures.append("\(address): \(error)")
                    for channel in channels { try? await channel.close() }
                    channels.removeAll()
                    retry = configuration.port == 0 && !bound.isEmpty
                    break
                }
            }
            if let first = channels.first, let port = first.localAddress?.port {
                for channel in channels { state.listen(on: channel) }
                return LoopbackRedirectListener(serverChannels: channels, addresses: bound, port: port,
                                                configuration: configuration, state: state)
            }
            if !retry { break }
        }
        throw LoopbackListenerError.bindFailed(failures)
    }

    /// Binds one address and returns the channel with the port it got (closed again when it has none).
    private static func bind(_ address: String, port: Int, _ configuration: LoopbackConfiguration,
                             state: LoopbackWaitState) async throws -> (any Channel, Int) {
        let channel = try await bootstrap(configuration, state: state).bind(host: address, port: port).get()
        guard let local = channel.localAddress?.port else {
            try? await channel.close()
            throw NoLocalPort()
        }
        return (channel, local)
    }

    private struct NoLocalPort: Error, CustomStringConvertible {
        var description: String { "no local port" }
    }

    /// Whether a bind failure means the address family is missing (no IPv6 on the machine), not that it is taken.
    private static func familyUnavailable(_ code: CInt) -> Bool {
        code == EAFNOSUPPORT || code == EADDRNOTAVAIL || code == EPROTONOSUPPORT
    }

    private static func bootstrap(_ configuration: LoopbackConfiguration, state: LoopbackWaitState) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.backlog, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    state.track(channel)
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(RequestLimitHandler(limit: configuration.maxRequestBytes))
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try pipeline.addHandler(RedirectRequestHandler(configuration: configuration, state: state))
                }
            }
    }

    /// Waits for the matching response, then closes the listener.
    ///
    /// A response that arrived before this call is returned at once.
    ///
    /// - Parameter timeout: how long to wait; nil waits until cancelled or closed.
    /// - Throws: ``LoopbackListenerError/timedOut`` after `timeout`, `CancellationError` when the task is
    ///   cancelled, ``LoopbackListenerError/closed`` when ``close()`` was called.
    public func waitForRedirect(timeout: Duration? = nil) async throws -> LoopbackRedirect {
        let state = self.state
        let timer = timeout.map { limit in
            serverChannel.eventLoop.scheduleTask(in: limit.timeAmount) {
                state.finish(.failure(LoopbackListenerError.timedOut))
            }
        }
        defer { timer?.cancel() }
        do {
            let redirect = try await withTaskCancellationHandler {
                try await state.wait()
            } onCancel: {
                state.finish(.failure(CancellationError()))
            }
            await close()
            return redirect
        } catch {
            await close()
            throw error
        }
    }

    /// Whether a task is suspended in ``waitForRedirect(timeout:)`` now (for tests that act on a waiting task).
    package var isWaiting: Bool { state.hasWaiter }

    /// Whether the listening port is still open.
    public var isListening: Bool { serverChannels.contains { $0.isActive } }

    /// Stops listening and closes every open connection. A pending wait ends with ``LoopbackListenerError/closed``.
    public func close() async {
        state.finish(.failure(LoopbackListenerError.closed))
        for channel in serverChannels { try? await channel.close() }
        for connection in state.openConnections {
            try? await connection.close()
        }
    }
}
