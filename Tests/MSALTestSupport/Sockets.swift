import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP sockets on 127.0.0.1 for tests of what happens when a server does not answer.
public enum TestSockets {
    /// A socket bound to an ephemeral port of 127.0.0.1 and, with `backlog`, listening (connections then wait in the
    /// backlog and are never accepted); without, not listening (connections are refused). Its descriptor and port;
    /// close the descriptor when done.
    public static func bound(listening backlog: CInt? = nil) -> (descriptor: CInt, port: Int)? {
        #if canImport(Glibc)
        let fd = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        } && (backlog.map { listen(fd, $0) == 0 } ?? true)
        guard ready else { close(fd); return nil }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A bound socket that does not listen: connections to its port are refused.
    public static func boundNotListening() -> (CInt, Int)? {
        bound().map { ($0.descriptor, $0.port) }
    }
}
