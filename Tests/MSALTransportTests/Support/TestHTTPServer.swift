import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import MSALTestSupport

/// One request a ``TestHTTPServer`` received.
struct ReceivedRequest: Sendable {
    var method: String
    var uri: String
    var headers: [(name: String, value: String)]
    var body: Data
    /// Which TCP connection carried the request (the same number for requests on a reused connection).
    var connection: Int

    var path: String { String(uri.prefix { $0 != "?" }) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What a ``TestHTTPServer`` answers.
enum TestAnswer: Sendable {
    /// A complete response.
    case respond(status: Int, headers: [(String, String)] = [], body: Data = Data())
    /// Nothing, ever: the connection stays open and silent (a black-holed endpoint).
    case silence
    /// A complete response, then the server closes the connection without saying so in advance (as a server
    /// or middlebox that drops idle keep-alive connections does).
    case respondAndClose(status: Int, body: Data)

    static func json(_ object: [String: Any], status: Int = 200) -> TestAnswer {
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return .respond(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    static func redirect(_ status: Int, to location: String) -> TestAnswer {
        .respond(status: status, headers: [("Location", location)])
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) that records every request and answers through a
/// closure. Stop it with ``stop()``.
final class TestHTTPServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let state: Recorder

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var requests: [ReceivedRequest] { state.requests }
    /// How many connections have closed (on either side).
    var closedConnections: Int { state.closedConnections }

    private init(channel: any Channel, state: Recorder) {
        self.channel = channel
        self.state = state
        self.port = channel.localAddress?.port ?? 0
    }

    static func start(_ answer: @escaping @Sendable (ReceivedRequest) -> TestAnswer) async throws -> TestHTTPServer {
        let state = Recorder(answer: answer)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPServer(channel: channel, state: state)
    }

    func stop() async {
        try? await channel.close()
    }

    final class Recorder: Sendable {
        let answer: @Sendable (ReceivedRequest) -> TestAnswer
        private let lock = NSLock()
        nonisolated(unsafe) private var log: [ReceivedRequest] = []

        init(answer: @escaping @Sendable (ReceivedRequest) -> TestAnswer) { self.answer = answer }

        nonisolated(unsafe) private var closed = 0

        var requests: [ReceivedRequest] { lock.withLock { log } }
        var closedConnections: Int { lock.withLock { closed } }
        func record(_ request: ReceivedRequest) { lock.withLock { log.append(request) } }
        func recordClose() { lock.withLock { closed += 1 } }
    }

    private final class RequestHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let state: Recorder
        var head: HTTPRequestHead?
        var body = Data()

        init(state: Recorder) { self.state = state }

        func channelInactive(context: ChannelHandlerContext) {
            state.recordClose()
            context.fireChannelInactive()
        }

        /// Writes a response; `Content-Length` is the body's unless the answer set one (to send a short body).
        func write(context: ChannelHandlerContext, version: HTTPVersion, status: Int, headers: [(String, String)], body: Data) {
            var fields = HTTPHeaders(headers)
            if !fields.contains(name: "Content-Length") { fields.add(name: "Content-Length", value: String(body.count)) }
            let responseHead = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: fields)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            if fields["Content-Length"].first == String(body.count) {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                context.flush()
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = Data()
            case .body(var buffer):
                body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
            case .end:
                guard let head else { return }
                let request = ReceivedRequest(method: head.method.rawValue, uri: head.uri,
                                              headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body,
                                              // The client's port names the TCP connection: an object identity
                                              // could be reused by the next connection's channel.
                                              connection: context.channel.remoteAddress?.port ?? -1)
                state.record(request)
                switch state.answer(request) {
                case .silence:
                    return
                case .respond(let status, let headers, let body):
                    write(context: context, version: head.version, status: status, headers: headers, body: body)
                case .respondAndClose(let status, let body):
                    write(context: context, version: head.version, status: status, headers: [], body: body)
                    context.close(promise: nil)
                }
            }
        }
    }
}
