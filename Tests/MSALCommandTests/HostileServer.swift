import Foundation
import MSALTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers each request with what `handler` returns, one connection per
/// request (`Connection: close`). For playing a hostile identity provider to the `msal` binary.
final class HostileServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        /// The path with its query.
        var target: String
        var body: String
        var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: Data

        static func json(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
        }
    }

    typealias Handler = @Sendable (Request) -> Response

    let port: UInt16
    private let socketDescriptor: Int32
    private let handler: Handler

    /// `http://127.0.0.1:<port>`.
    var origin: String { "http://127.0.0.1:\(port)" }

    init(handler: @escaping Handler) throws {
        self.handler = handler
        (socketDescriptor, port) = try Self.listeningSocket(backlog: 16)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// A TCP socket listening on 127.0.0.1 on a port of the kernel's choosing, and that port.
    static func listeningSocket(backlog: Int32) throws -> (descriptor: Int32, port: UInt16) {
        guard let (descriptor, port) = TestSockets.bound(listening: backlog) else { throw POSIXError(.EADDRNOTAVAIL) }
        return (descriptor, UInt16(port))
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(socketDescriptor, Int32(SHUT_RDWR))
        close(socketDescriptor)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(socketDescriptor, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
            headEnd = received.range(of: separator)
            if received.count > 1_000_000 { return }
        }
        guard let headEnd else { return }
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = (lines.first ?? "").split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var contentLength = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        var body = Data(received[headEnd.upperBound...])
        while body.count < contentLength {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            body.append(contentsOf: buffer[0..<count])
        }
        let request = Request(method: String(requestLine[0]), target: String(requestLine[1]),
                              body: String(decoding: body, as: UTF8.self))
        let response = handler(request)
        var text = "HTTP/1.1 \(response.status) Status\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        var output = Data((text + "\r\n").utf8)
        output.append(response.body)
        output.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(connection, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
