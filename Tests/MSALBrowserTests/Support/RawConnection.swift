import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import MSALTestSupport
#endif

/// A plain TCP client for the listener tests: it sends exactly the bytes given (junk, half requests, ...) and reads
/// what comes back. Blocking calls run on their own thread, never on the concurrency pool.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to 127.0.0.1:`port`; nil when the connection is refused.
    static func connect(port: Int) async -> RawConnection? {
        await onThread { blockingConnect(port: port) }
    }

    private static func blockingConnect(port: Int) -> RawConnection? {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc_connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            _ = Glibc_close(fd)
            return nil
        }
        return RawConnection(descriptor: fd)
    }

    /// Sends `text` (or raw bytes); false when the peer is gone.
    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) async -> Bool {
        await onThread { self.blockingSend(bytes) }
    }

    private func blockingSend(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer in
                Glibc_send(descriptor, buffer.baseAddress, buffer.count)
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the peer closes or `timeout` passes without data; returns the text and whether the peer closed.
    func readAll(timeout: TimeInterval = 5) async -> (text: String, closedByPeer: Bool) {
        await onThread { self.blockingReadAll(timeout: timeout) }
    }

    private func blockingReadAll(timeout: TimeInterval) -> (text: String, closedByPeer: Bool) {
        let fd = descriptor
        var tv = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - floor(timeout)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                data += buffer[0..<count]
            } else {
                return (String(decoding: data, as: UTF8.self), count == 0 || errno == ECONNRESET)
            }
        }
    }

    /// Reads one HTTP response: until the peer closes, or the body announced by `Content-Length` is complete.
    func readResponse(timeout: TimeInterval) async -> String {
        let fd = descriptor
        return await onThread {
            var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var data = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 16384)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                data += buffer[0..<count]
                if let expected = Self.expectedLength(data), data.count >= expected { break }
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Header length plus `Content-Length`, once the head is complete.
    private static func expectedLength(_ data: [UInt8]) -> Int? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard data.count >= 4, let end = (0...(data.count - 4)).first(where: { Array(data[$0..<$0 + 4]) == separator })
        else { return nil }
        let head = String(decoding: data[0..<end], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            let value = line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)
            return Int(value).map { end + 4 + $0 }
        }
        return nil
    }

    /// Closes the socket.
    func close() {
        _ = Glibc_close(descriptor)
    }

    /// Whether the listener that answered on `port` is gone. A refused connection proves it; an accepted one does
    /// not, because the freed ephemeral port may belong to another test's socket by now (or a client socket may have
    /// connected to itself on it), so the `probe` request, one only the closed listener would accept, must then get
    /// anything but a 200.
    static func isGone(port: Int, probe: String) async -> Bool {
        guard let answer = await exchange(port: port, probe, timeout: 2) else { return true }
        return !answer.hasPrefix("HTTP/1.1 200")
    }

    /// Connects, sends and reads on one thread, so a busy concurrency pool cannot hold the request back between
    /// the connection and its bytes (the listener's per-connection request timeout counts from the connection).
    static func exchange(port: Int, _ request: String, timeout: TimeInterval = 30) async -> String? {
        await onThread {
            guard let connection = blockingConnect(port: port) else { return nil }
            defer { connection.close() }
            _ = connection.blockingSend(Array(request.utf8))
            return connection.blockingReadAll(timeout: timeout).text
        }
    }
}

/// The status code of a raw HTTP answer (`HTTP/1.1 404 Not Found` → 404).
func statusCode(_ response: String?) -> Int? {
    guard let line = response?.split(separator: "\r\n").first else { return nil }
    let parts = line.split(separator: " ")
    return parts.count > 1 ? Int(parts[1]) : nil
}

private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}

private func Glibc_connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

private func Glibc_send(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.send(fd, pointer, count, 0)
    #else
    Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    #endif
}

private func Glibc_close(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.close(fd)
    #else
    Glibc.close(fd)
    #endif
}
