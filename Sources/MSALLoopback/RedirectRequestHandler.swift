import Foundation
import NIOCore
import NIOHTTP1

/// Answers one HTTP request on one connection: the matching redirect is accepted, anything else is refused.
/// Every connection is closed after its answer, or when it does not deliver a whole request in time.
final class RedirectRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let configuration: LoopbackConfiguration
    private let state: LoopbackWaitState
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var timeout: Scheduled<Void>?
    private var answered = false

    init(configuration: LoopbackConfiguration, state: LoopbackWaitState) {
        self.configuration = configuration
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timeout = context.eventLoop.scheduleTask(in: configuration.requestTimeout.timeAmount) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            timeout?.cancel()
            answered = true
            guard let head else { return respond(context: context, .badRequest, LoopbackPages.notFound) }
            answer(context: context, head: head)
        }
    }

    private func answer(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let target = head.uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        guard path == configuration.path else {
            return respond(context: context, .notFound, LoopbackPages.notFound)
        }
        let encoded: Substring
        switch head.method {
        case .GET:
            encoded = parts.count > 1 ? parts[1] : ""
        case .POST:
            let contentType = head.headers.first(name: "content-type")?.lowercased() ?? ""
            guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
                return respond(context: context, .unsupportedMediaType, LoopbackPages.notAllowed)
            }
            encoded = Substring(body.getString(at: body.readerIndex, length: body.readableBytes) ?? "")
        default:
            return respond(context: context, .methodNotAllowed, LoopbackPages.notAllowed)
        }
        guard let parameters = FormDecoding.parse(encoded),
              let state = parameters["state"], state == configuration.expectedState else {
            return respond(context: context, .badRequest, LoopbackPages.badState)
        }
        guard self.state.claim() else {
            return respond(context: context, .notFound, LoopbackPages.notFound)
        }
        let redirect = LoopbackRedirect(method: head.method.rawValue, parameters: parameters)
        let page = parameters["error"] == nil ? configuration.successPage : configuration.failurePage
        let waitState = self.state
        // The wait ends and the listening sockets close before this connection does: once the browser has the whole
        // page, the address is no longer served.
        respond(context: context, .ok, page) { eventLoop in
            waitState.finish(.success(redirect))
            return waitState.listenersClosed(on: eventLoop)
        }
    }

    private func respond(context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ page: String,
                         then done: (@Sendable (any EventLoop) -> EventLoopFuture<Void>)? = nil) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(page.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Connection", value: "close")
        let responseHead = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: page)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            guard let done else { return channel.close(promise: nil) }
            done(channel.eventLoop).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
