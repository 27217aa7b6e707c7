import Foundation

/// Why JSON text could not be read. The message names the byte offset, never the content.
struct CacheJSONError: Error, Sendable, CustomStringConvertible {
    let message: String
    let offset: Int
    var description: String { "\(message) at byte \(offset)" }
}

/// A small, strict UTF-8 JSON reader (RFC 8259) over a byte buffer, tuned for the token-cache document.
///
/// Besides reading whole values as ``JSONValue``, it can walk an object member by member and hand out a
/// member name as raw bytes (when it holds no escape), so the cache matches field names without making
/// a `String` for each. Nesting is limited to 512 levels.
///
/// Fidelity, so that rewriting a cache does not change other SDKs' fields: a number whose text the writer would
/// not reproduce from a `Double` (an integer beyond ±2⁵³, `-0`, `1.0`, `1e3`) is kept as its text
/// (``JSONValue/numberText(_:)``). Invalid UTF-8 in a string is refused as an error (JSON text must be UTF-8,
/// RFC 8259 §8.1), never replaced, so that a document is never rewritten with changed bytes. A `\u` escape of a
/// lone surrogate (valid JSON, no Unicode scalar) reads as U+FFFD.
struct CacheJSONReader {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private(set) var position = 0
    private var depth = 0

    /// A member name: raw bytes (valid UTF-8) when it has no escapes, else the decoded string.
    enum Name {
        case raw(UnsafeBufferPointer<UInt8>)
        case decoded(String)

        var string: String {
            switch self {
            case .raw(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .decoded(let s): return s
            }
        }
    }

    /// `buffer` must outlive the reader.
    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        end = buffer.count
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { position = 3 }
    }

    func error(_ message: String) -> CacheJSONError { CacheJSONError(message: message, offset: position) }

    @inline(__always)
    mutating func skipWhitespace() {
        var index = position
        while index < end {
            // Indented documents: skip runs of eight spaces at a time.
            while end - index >= 8,
                  UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 {
                index += 8
            }
            guard index < end else { break }
            let b = base[index]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 } else { break }
        }
        position = index
    }

    /// The index of the first `"` at or after `start` such that the bytes before it hold no backslash or
    /// control character, and whether they are all ASCII; nil when the literal needs the escaping path (or is
    /// unterminated).
    @inline(__always)
    private func plainStringEnd(from start: Int) -> (quote: Int, ascii: Bool)? {
        guard start < end, let found = memchr(base + start, 0x22, end - start) else { return nil }
        let quote = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
        var special: UInt8 = 0
        var high: UInt8 = 0
        for index in start..<quote {
            let b = base[index]
            special |= (b == 0x5C ? 1 : 0) | (b < 0x20 ? 1 : 0)
            high |= b
        }
        return special == 0 ? (quote, high < 0x80) : nil
    }

    /// `bytes` as a string; throws when they are not valid UTF-8 (`ascii` tells that they are all ASCII).
    @inline(__always)
    private func decode(_ bytes: UnsafeBufferPointer<UInt8>, ascii: Bool, at offset: Int) throws -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces invalid sequences with U+FFFD, which changes the bytes: compare to detect it.
        if !ascii && !text.utf8.elementsEqual(bytes) {
            throw CacheJSONError(message: "invalid UTF-8 in a string", offset: offset)
        }
        return text
    }

    /// The next non-whitespace byte, without consuming it.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < end ? base[position] : nil
    }

    /// Throws unless only whitespace remains.
    mutating func expectEnd() throws {
        skipWhitespace()
        if position != end { throw error("unexpected data after the JSON value") }
    }

    // MARK: Objects, member by member

    /// Consumes `{`. Returns false (consuming nothing) when the next value is not an object.
    mutating func beginObject() throws -> Bool {
        guard peek() == UInt8(ascii: "{") else { return false }
        position += 1
        depth += 1
        if depth > 512 { throw error("JSON nested too deeply") }
        return true
    }

    /// The next member's name (consuming the `:`), or nil at the closing `}` (consumed).
    /// `first` tells whether this is the first call for this object.
    mutating func nextMember(first: Bool) throws -> Name? {
        guard let b = peek() else { throw error("unterminated object") }
        if b == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return nil
        }
        if !first {
            guard b == UInt8(ascii: ",") else { throw error("expected ',' or '}' in object") }
            position += 1
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a member name") }
        } else if b != UInt8(ascii: "\"") {
            throw error("expected a member name")
        }
        let name = try readName()
        guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
        position += 1
        return name
    }

    // MARK: Values

    /// Reads the next value.
    mutating func readValue() throws -> JSONValue {
        guard let b = peek() else { throw error("unexpected end of JSON") }
        switch b {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "{"):
            _ = try beginObject()
            var object: [String: JSONValue] = [:]
            var first = true
            while let name = try nextMember(first: first) {
                first = false
                object[name.string] = try readValue()
            }
            return .object(object)
        case UInt8(ascii: "["):
            position += 1
            depth += 1
            if depth > 512 { throw error("JSON nested too deeply") }
            var items: [JSONValue] = []
            if peek() == UInt8(ascii: "]") {
                position += 1
            } else {
                while true {
                    items.append(try readValue())
                    guard let next = peek() else { throw error("unterminated array") }
                    position += 1
                    if next == UInt8(ascii: "]") { break }
                    if next != UInt8(ascii: ",") { throw error("expected ',' or ']' in array") }
                }
            }
            depth -= 1
            return .array(items)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try readNumber()
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard end - position >= count, memcmp(base + position, word.utf8Start, count) == 0 else {
            throw error("invalid literal")
        }
        position += count
    }

    /// Reads a number: ``JSONValue/number(_:)`` when the writer reproduces its text from the `Double`, else
    /// ``JSONValue/numberText(_:)``.
    private mutating func readNumber() throws -> JSONValue {
        let start = position
        var simple = true
        if position < end, base[position] == UInt8(ascii: "-") { position += 1 }
        let intStart = position
        while position < end, base[position] >= 0x30, base[position] <= 0x39 { position += 1 }
        let intDigits = position - intStart
        guard intDigits > 0 else { throw error("invalid value") }
        if intDigits > 1, base[intStart] == 0x30 { throw error("leading zero in number") }
        if position < end, base[position] == UInt8(ascii: ".") {
            simple = false
            position += 1
            let fracStart = position
            while position < end, base[position] >= 0x30, base[position] <= 0x39 { position += 1 }
            if position == fracStart { throw error("invalid number") }
        }
        if position < end, base[position] | 0x20 == UInt8(ascii: "e") {
            simple = false
            position += 1
            if position < end, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                position += 1
            }
            let expStart = position
            while position < end, base[position] >= 0x30, base[position] <= 0x39 { position += 1 }
            if position == expStart { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
        guard let value = Double(text) else { throw error("invalid number") }
        // Up to 15 digits, no fraction or exponent, not -0: the writer prints exactly this text again.
        if simple && intDigits <= 15 && !(value == 0 && intStart != start) { return .number(value) }
        return CacheJSONWriter.numberText(value) == text ? .number(value) : .numberText(text)
    }

    /// Whether `text` is exactly one JSON number (RFC 8259 §6).
    static func isNumber(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in
            guard let first = bytes.first, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else { return false }
            var reader = CacheJSONReader(bytes)
            guard (try? reader.readNumber()) != nil else { return false }
            return reader.position == bytes.count
        }
    }

    // MARK: Strings

    /// Reads the string literal at the current position (after whitespace, at its opening quote) as a
    /// ``Name``: raw bytes when it has no escapes. Returns nil, consuming nothing, if the next value is not a string.
    mutating func readStringToken() throws -> Name? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        return try readName()
    }

    private mutating func readName() throws -> Name {
        let start = position + 1  // after the opening quote
        if let (quote, ascii) = plainStringEnd(from: start) {
            let bytes = UnsafeBufferPointer(start: base + start, count: quote - start)
            if !ascii { _ = try decode(bytes, ascii: false, at: start) }
            position = quote + 1
            return .raw(bytes)
        }
        return .decoded(try readString())
    }

    /// Reads a string literal starting at the opening quote.
    mutating func readString() throws -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        if let (quote, ascii) = plainStringEnd(from: start) {
            let text = try decode(UnsafeBufferPointer(start: base + start, count: quote - start), ascii: ascii, at: start)
            position = quote + 1
            return text
        }
        while position < end {
            let b = base[position]
            if b == 0x22 || b == 0x5C { break }
            if b < 0x20 { throw error("control character in string") }
            position += 1
        }
        var out: [UInt8] = Array(UnsafeBufferPointer(start: base + start, count: position - start))
        while position < end {
            let b = base[position]
            position += 1
            switch b {
            case 0x22:
                return try out.withUnsafeBufferPointer { try decode($0, ascii: false, at: start) }
            case 0x5C:
                guard position < end else { throw error("unterminated string") }
                let e = base[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): appendUTF8(try readEscapedScalar(), to: &out)
                default: throw error("invalid escape in string")
                }
            default:
                if b < 0x20 { throw error("control character in string") }
                out.append(b)
            }
        }
        throw error("unterminated string")
    }

    /// Reads the `XXXX` after `\u` (and a low surrogate escape when this is a high surrogate).
    private mutating func readEscapedScalar() throws -> UInt32 {
        let first = try readHex4()
        if first >= 0xD800 && first < 0xDC00 {
            if end - position >= 6, base[position] == 0x5C, base[position + 1] == UInt8(ascii: "u") {
                let saved = position
                position += 2
                let second = try readHex4()
                if second >= 0xDC00 && second < 0xE000 {
                    return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                }
                position = saved
            }
            return 0xFFFD
        }
        if first >= 0xDC00 && first < 0xE000 { return 0xFFFD }
        return first
    }

    private mutating func readHex4() throws -> UInt32 {
        guard end - position >= 4 else { throw error("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = base[position]
            position += 1
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }

    private func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }
}
