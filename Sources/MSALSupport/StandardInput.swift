import Foundation


/// Lines of standard input read byte by byte (nothing buffered past the line, so a child process or a later prompt
/// reads what follows), bounded: a line longer than the limit is cut, never held whole.
package enum StandardInput {
    /// One line without its end of line (`\n`, or `\r\n`), at most `limit` bytes kept; nil at the end of input.
    package static func readLine(limit: Int) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            if bytes.count < limit { bytes.append(byte) }
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
