import FuzzHarness
import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import MSALLoopback

/// The loopback listener's connection pipeline (size limit, HTTP/1.1 decoder, redirect handler) over an in-memory
/// channel: the input is what a local process or a browser sends on one connection, delivered in chunks of 61 bytes.
public enum LoopbackFuzzing {
    public static func connection(_ data: Data) async throws {
        let state = LoopbackWaitState()
        let answer = try deliver(data, state: state)
        let redirect: LoopbackRedirect?
        if state.isFinished, case .success(let accepted) = await Result(catching: { try await state.wait() }) {
            redirect = accepted
        } else {
            redirect = nil
        }
        try LoopbackOracle.check(request: data, answer: answer, redirect: redirect)
    }

    /// Runs the pipeline on `data` (synchronously, on this thread) and returns the bytes written back.
    private static func deliver(_ data: Data, state: LoopbackWaitState) throws -> Data {
        let configuration = LoopbackOracle.configuration
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(ClosedChannelWriteGate())
        try pipeline.addHandler(RequestLimitHandler(limit: configuration.maxRequestBytes))
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
        try pipeline.addHandler(RedirectRequestHandler(configuration: configuration, state: state))
        // An embedded channel is active (and reads) only once connected.
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 51234)).wait()
        var offset = data.startIndex
        while offset < data.endIndex, channel.isActive {
            let end = min(offset + 61, data.endIndex)
            // A malformed request makes the decoder throw after its error handler answered 400: not a failure.
            _ = try? channel.writeInbound(channel.allocator.buffer(bytes: data[offset..<end]))
            offset = end
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        var answer = Data()
        while let part = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = part { answer.append(contentsOf: buffer.readableBytesView) }
        }
        _ = try? channel.finish()
        return answer
    }
}

/// Fails writes once the channel is closed, as a socket channel does (an `EmbeddedChannel` records them anyway: without
/// this, a `400` that the HTTP error handler writes while the connection closes would look like a second answer).
final class ClosedChannelWriteGate: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if context.channel.isActive {
            context.write(data, promise: promise)
        } else {
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
