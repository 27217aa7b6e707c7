import NIOCore
import NIOHTTP1
import NIOPosix

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

    private let serverChannel: any Channel
    private let state: LoopbackWaitState

    private init(serverChannel: any Channel, address: String, port: Int, configuration: LoopbackConfiguration,
                 state: LoopbackWaitState) {
        self.serverChannel = serverChannel
        self.address = address
        self.port = port
        self.configuration = configuration
        self.state = state
    }

    /// Binds the first of the configured loopback addresses that accepts the port and starts accepting requests.
    ///
    /// - Throws: ``LoopbackListenerError/bindFailed(_:)`` when no address could be bound.
    public static func start(_ configuration: LoopbackConfiguration) async throws -> LoopbackRedirectListener {
        let state = LoopbackWaitState()
        var failures: [String] = []
        for address in configuration.bindAddresses {
            do {
                let channel = try await bootstrap(configuration, state: state)
                    .bind(host: address, port: configuration.port).get()
                guard let port = channel.localAddress?.port else {
                    try? await channel.close()
                    failures.append("\(address): no local port")
                    continue
                }
                state.whenFinished { channel.close(promise: nil) }
                return LoopbackRedirectListener(serverChannel: channel, address: address, port: port,
                                                configuration: configuration, state: state)
            } catch {
                failures.append("\(address): \(error)")
            }
        }
        throw LoopbackListenerError.bindFailed(failures)
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

    /// Whether the listening port is still open.
    public var isListening: Bool { serverChannel.isActive }

    /// Stops listening and closes every open connection. A pending wait ends with ``LoopbackListenerError/closed``.
    public func close() async {
        state.finish(.failure(LoopbackListenerError.closed))
        try? await serverChannel.close()
        for connection in state.openConnections {
            try? await connection.close()
        }
    }
}
