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
        respond(context: context, .ok, page) {
            waitState.finish(.success(redirect))
        }
    }

    private func respond(context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ page: String,
                         then done: (@Sendable () -> Void)? = nil) {
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
            channel.close(promise: nil)
            done?()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Counts the raw bytes a connection sends; past the limit it answers 413 and disconnects.
final class RequestLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limit: Int
    private var received = 0
    private var exceeded = false

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !exceeded else { return }
        received += unwrapInboundIn(data).readableBytes
        guard received <= limit else {
            exceeded = true
            let page = LoopbackPages.tooLarge
            let response = "HTTP/1.1 413 Content Too Large\r\nContent-Type: text/html; charset=utf-8\r\n"
                + "Content-Length: \(page.utf8.count)\r\nConnection: close\r\n\r\n\(page)"
            // Answer, stop sending, and drain what the client still sends for a moment, so the answer is not
            // lost to a connection reset; then close.
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response))).whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
            }
            return
        }
        context.fireChannelRead(data)
    }
}

/// `application/x-www-form-urlencoded` decoding (also used for the query of a redirect).
enum FormDecoding {
    /// The decoded pairs, or nil when a name repeats or an escape is malformed.
    static func parse(_ encoded: Substring) -> [String: String]? {
        var result: [String: String] = [:]
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(nameValue[0]), !name.isEmpty else { return nil }
            guard let value = nameValue.count > 1 ? decode(nameValue[1]) : "" else { return nil }
            guard result[name] == nil else { return nil }
            result[name] = value
        }
        return result
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

extension Duration {
    /// The duration as a NIO time amount (nanoseconds, clamped).
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let limit = Int64.max / 1_000_000_000 - 1
        guard seconds < limit else { return .nanoseconds(Int64.max) }
        guard seconds >= 0 else { return .zero }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
