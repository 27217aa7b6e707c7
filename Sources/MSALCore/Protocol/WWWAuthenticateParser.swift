import Foundation

/// Reads `WWW-Authenticate` header values (RFC 9110 §11.6.1) into ``MSALWWWAuthenticateParameters``:
///
///     challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
///     auth-param = token BWS "=" BWS ( token / quoted-string )
///
/// Challenges and parameters are both comma-separated, so a name followed by whitespace and another name (no `=`)
/// starts the next challenge. Works on UTF-8 bytes; every loop advances, so any input ends.
package enum WWWAuthenticateParser {
    static let maximumHeaderLength = 64 * 1024
    static let maximumChallenges = 16
    static let maximumParameters = 64

    static func parse(_ value: String) -> [MSALWWWAuthenticateParameters] {
        guard value.utf8.count <= maximumHeaderLength else { return [] }
        var reader = Reader(bytes: Array(value.utf8))
        var challenges: [MSALWWWAuthenticateParameters] = []
        var pendingScheme: String? = nil
        while challenges.count < maximumChallenges {
            let scheme: String
            if let pending = pendingScheme {
                scheme = pending
                pendingScheme = nil
            } else {
                reader.skip { $0 == UInt8(ascii: ",") || isWhitespace($0) }
                if reader.atEnd { break }
                guard let token = reader.token() else {
                    reader.skipPastComma()
                    continue
                }
                scheme = token
            }
            var parameters: [String: String] = [:]
            var order = 0
            var token68: String? = nil
            reader.skipWhitespace()
            if let value = reader.token68() {
                token68 = value
            } else {
                // auth-params until the end, or until a name not followed by "=" (the next challenge's scheme).
                while !reader.atEnd {
                    reader.skip { $0 == UInt8(ascii: ",") || isWhitespace($0) }
                    if reader.atEnd { break }
                    guard let name = reader.token() else {
                        reader.skipPastComma()
                        continue
                    }
                    reader.skipWhitespace()
                    guard reader.peek == UInt8(ascii: "=") else {
                        // A bare name: the scheme of the next challenge (or junk, read as one).
                        pendingScheme = name
                        break
                    }
                    reader.advance()
                    reader.skipWhitespace()
                    let value: String?
                    if reader.peek == UInt8(ascii: "\"") {
                        value = reader.quotedString()
                    } else {
                        value = reader.bareValue()
                    }
                    guard let value else {
                        reader.skipPastComma()
                        continue
                    }
                    let key = name.lowercased()
                    if parameters[key] == nil, order < maximumParameters {
                        parameters[key] = value
                        order += 1
                    }
                }
            }
            challenges.append(MSALWWWAuthenticateParameters(scheme: scheme, parameters: parameters, token68: token68))
            if pendingScheme == nil, reader.atEnd { break }
        }
        return challenges
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// RFC 9110 `tchar`.
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110 `token68` characters, without the trailing `=`.
    static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~+/".utf8.contains(byte)
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func advance() { index += 1 }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while index < bytes.count, predicate(bytes[index]) { index += 1 }
        }

        mutating func skipWhitespace() { skip(while: WWWAuthenticateParser.isWhitespace) }

        /// Skips to just after the next comma outside a quoted string (or to the end).
        mutating func skipPastComma() {
            var quoted = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if quoted {
                    if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { quoted = false }
                } else if byte == UInt8(ascii: "\"") {
                    quoted = true
                } else if byte == UInt8(ascii: ",") {
                    return
                }
            }
            index = min(index, bytes.count)
        }

        mutating func token() -> String? {
            let start = index
            skip(while: WWWAuthenticateParser.isTokenCharacter)
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// An unquoted parameter value: everything up to a comma or whitespace (a token, or base64 with `/` and
        /// `=` padding, which some servers send unquoted).
        mutating func bareValue() -> String? {
            let start = index
            skip { $0 != UInt8(ascii: ",") && !WWWAuthenticateParser.isWhitespace($0) && $0 != UInt8(ascii: "\"") }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A `token68` that makes up the whole challenge: its characters, any `=` padding, then the end or a comma.
        /// Leaves the reader unchanged otherwise (an `auth-param` list follows instead).
        mutating func token68() -> String? {
            let start = index
            var end = index
            while end < bytes.count, WWWAuthenticateParser.isToken68Character(bytes[end]) { end += 1 }
            guard end > start else { return nil }
            var padded = end
            while padded < bytes.count, bytes[padded] == UInt8(ascii: "=") { padded += 1 }
            var after = padded
            while after < bytes.count, WWWAuthenticateParser.isWhitespace(bytes[after]) { after += 1 }
            // `name=value` is a parameter, not token68: padding must not be followed by a value.
            guard after >= bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
            index = after
            return String(decoding: bytes[start..<padded], as: UTF8.self)
        }

        /// A quoted string (the reader is at its opening quote), unescaped; nil when it is not closed.
        mutating func quotedString() -> String? {
            var value: [UInt8] = []
            var cursor = index + 1
            while cursor < bytes.count {
                let byte = bytes[cursor]
                if byte == UInt8(ascii: "\\") {
                    guard cursor + 1 < bytes.count else { break }
                    value.append(bytes[cursor + 1])
                    cursor += 2
                } else if byte == UInt8(ascii: "\"") {
                    index = cursor + 1
                    return String(decoding: value, as: UTF8.self)
                } else {
                    value.append(byte)
                    cursor += 1
                }
            }
            index = bytes.count
            return nil
        }
    }
}
