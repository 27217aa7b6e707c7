import Foundation

/// The header fields of the final response, from the raw head lines libcurl hands over: every head it received,
/// interim ones (`100 Continue`) and a proxy's answer to `CONNECT` included, each starting with its status line.
package enum CurlResponseHead {
    /// The fields of the last head, in order. A line that is not `name: value` with a token name is dropped; a
    /// folded line (starting with a space or tab) continues the previous value; values lose surrounding spaces and
    /// tabs, and never hold a CR, LF or NUL.
    package static func fields(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let line = rawLine.filter { $0 != UInt8(ascii: "\r") && $0 != 0 }
            if line.isEmpty { continue }
            if line.starts(with: Array("HTTP/".utf8)) {
                fields.removeAll(keepingCapacity: true)
                continue
            }
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
                guard !fields.isEmpty else { continue }
                let more = trimmed(line[...])
                if !more.isEmpty {
                    let last = fields.count - 1
                    fields[last].value += (fields[last].value.isEmpty ? "" : " ") + String(decoding: more, as: UTF8.self)
                }
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[..<colon].allSatisfy(isTokenByte) else { continue }
            fields.append((name: String(decoding: line[..<colon], as: UTF8.self),
                           value: String(decoding: trimmed(line[line.index(after: colon)...]), as: UTF8.self)))
        }
        return fields
    }

    /// RFC 9110's `tchar`.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice.removeFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice.removeLast() }
        return slice
    }
}
