package import Foundation

/// Reading a file that another program owns or that a user names (another tool's configuration, a certificate, a
/// CA bundle): regular files only, opened without blocking, so that a FIFO or a device at the path costs nothing,
/// and never more than a bound, so that a huge file costs no more memory than a file may hold.
package enum OutsideFile {
    /// Why a file was not read.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case absent
        case notRegular
        case tooLarge(limit: Int)
        case unreadable(Int32)

        package var description: String {
            switch self {
            case .absent: "it does not exist"
            case .notRegular: "it is not a regular file"
            case .tooLarge(let limit): "it is larger than \(limit) bytes"
            case .unreadable(let code): "it cannot be read: \(String(cString: strerror(code)))"
            }
        }
    }

    /// The contents of the regular file at `path`, at most `limit` bytes.
    package static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw errno == ENOENT || errno == ENOTDIR ? .absent : .unreadable(errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegular }
        guard Int64(info.st_size) <= Int64(limit) else { throw .tooLarge(limit: limit) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .unreadable(errno)
            }
            if count == 0 { return data }
            guard data.count + count <= limit else { throw .tooLarge(limit: limit) }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
