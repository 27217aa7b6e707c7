import Foundation

/// Writes JSON text the way Python's `json.dumps(obj, indent=4)` does: four-space indentation,
/// `", "`-free separators (`,` + newline, `": "`), non-ASCII escaped as `\uXXXX` (surrogate pairs above
/// U+FFFF), empty containers as `{}` and `[]`.
///
/// Objects are written by calling ``beginObject()``, then ``key(_:indent:)`` followed by a value for each
/// member, then ``endObject(indent:)``.
struct CacheJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the innermost open container has no member yet.
    private var containerIsEmpty: [Bool] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        containerIsEmpty.append(true)
    }

    mutating func endObject(indent: Int) {
        let wasEmpty = containerIsEmpty.removeLast()
        if !wasEmpty { newline(indent: indent) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Starts a member of the current object, at nesting level `indent` (the member's own level).
    mutating func key(_ name: String, indent: Int) {
        separate(indent: indent)
        string(name)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    /// Writes a member whose name needs no escaping and whose value is a string; skipped when `value` is nil.
    @inline(__always)
    mutating func field(_ name: StaticString, _ value: String?, indent: Int) {
        guard let value else { return }
        separate(indent: indent)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: " ")])
        string(value)
    }

    /// Writes the members of `extra` sorted by name (the fields of an entry that MSAL does not model).
    mutating func extraFields(_ extra: [String: JSONValue], indent: Int) {
        if extra.isEmpty { return }
        for name in extra.keys.sorted(by: CacheStrings.codePointLess) {
            key(name, indent: indent)
            value(extra[name]!, indent: indent)
        }
    }

    /// Writes any JSON value; `indent` is the level at which the value starts.
    mutating func value(_ value: JSONValue, indent: Int) {
        switch value {
        case .string(let s): string(s)
        case .number(let n): number(n)
        case .numberText(let text):
            // Kept byte for byte; text that is not a JSON number (built by hand) is written as its value.
            if CacheJSONReader.isNumber(text) { bytes.append(contentsOf: text.utf8) } else { number(Double(text) ?? .nan) }
        case .bool(let b): bytes.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            containerIsEmpty.append(true)
            for item in items {
                separate(indent: indent + 1)
                self.value(item, indent: indent + 1)
            }
            let wasEmpty = containerIsEmpty.removeLast()
            if !wasEmpty { newline(indent: indent) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            beginObject()
            for name in members.keys.sorted(by: CacheStrings.codePointLess) {
                key(name, indent: indent + 1)
                self.value(members[name]!, indent: indent + 1)
            }
            endObject(indent: indent)
        }
    }

    mutating func number(_ n: Double) {
        bytes.append(contentsOf: Self.numberText(n).utf8)
    }

    /// The text written for `n`: whole numbers below 10¹⁶ as integers, `-0.0` as Python writes it, other
    /// finite values in Swift's shortest round-trip form, and `null` for NaN and infinities (which JSON lacks;
    /// Python would write names that JSON readers reject).
    static func numberText(_ n: Double) -> String {
        if n == 0 && n.sign == .minus { return "-0.0" }
        if n.isFinite, n.rounded() == n, abs(n) < 1e16 { return String(Int64(n)) }
        return n.isFinite ? "\(n)" : "null"
    }

    /// Writes a JSON string literal, escaping as Python's `ensure_ascii=True` does.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var copy = s
        let plain = copy.withUTF8 { utf8 -> Bool in
            for byte in utf8 where byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !plain { escaped(s) }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escaped(_ s: String) {
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x20..<0x7F: bytes.append(UInt8(v))
            case 0x10000...:
                let u = v - 0x10000
                unicodeEscape(0xD800 + (u >> 10))
                unicodeEscape(0xDC00 + (u & 0x3FF))
            default: unicodeEscape(v)
            }
        }
    }

    private mutating func unicodeEscape(_ unit: UInt32) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(0x5C)
        bytes.append(UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int((unit >> UInt32(shift)) & 0xF)]) }
    }

    private mutating func separate(indent: Int) {
        if containerIsEmpty[containerIsEmpty.count - 1] {
            containerIsEmpty[containerIsEmpty.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        newline(indent: indent)
    }

    private mutating func newline(indent: Int) {
        bytes.append(0x0A)
        for _ in 0..<(indent * 4) { bytes.append(0x20) }
    }
}
