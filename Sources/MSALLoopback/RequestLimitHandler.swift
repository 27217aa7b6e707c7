import NIOCore

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
            // Answer, stop sending, and drain what the client still sends for a while (5 s: a loaded machine may
            // take more than a second to read it all), so the answer is not lost to a connection reset; then close.
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response))).whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
            }
            return
        }
        context.fireChannelRead(data)
    }
}
