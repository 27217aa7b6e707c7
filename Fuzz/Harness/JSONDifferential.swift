import Foundation
@testable import MSALCore

/// The hand-written cache JSON reader against Foundation's `JSONSerialization` (with `.fragmentsAllowed`): the same
/// accept/reject decision, and the same values for what both accept.
///
/// Differences that are intended, each recognised precisely (anything else is a failure):
/// - **Text that is not UTF-8.** Foundation detects UTF-16 and UTF-32 and reads them; the cache reader reads UTF-8
///   only (RFC 8259 §8.1). UTF-8 JSON text never holds a NUL byte, so: Foundation accepts, we reject, and the input
///   holds a NUL byte.
/// - **Unpaired surrogate escapes** (`"\ud800"`). Foundation refuses; the cache reader reads U+FFFD. Only when the
///   input holds such an escape.
/// - **Numbers beyond Double's range** (`1e400`). Foundation refuses ("not representable") or reads a decimal; the
///   cache reader keeps the number (its text, so a rewrite leaves it unchanged; its `doubleValue` is ±infinity).
///   Only when a number literal of the input overflows Double.
/// - **Trailing commas** (`[1,]`, `{"a":1,}`). Foundation accepts them; the cache reader follows RFC 8259 and
///   refuses: only when the reader's error is at a `]` or `}` whose previous non-blank byte is `,`.
/// - **Integers beyond 64 bits.** Foundation reads them as `NSDecimalNumber`, whose conversion to `Double` may differ
///   from the correctly rounded value in the last bits (measured up to 2.3e-15 relative on long mantissas with large
///   exponents): for those, a relative difference up to 1e-12 is the same value. Ours is `Double(text)`, correctly
///   rounded.
enum JSONDifferential {
    /// Throws `FuzzFailure` when the two readers disagree in a way not listed above.
    static func check(_ data: Data) throws {
        let ours = readWithCacheReader(data)
        let theirs: Result<Any, any Error> = Result {
            try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        }
        switch (ours, theirs) {
        case (.failure, .failure):
            return
        case (.success(let value), .success(let foundation)):
            try compare(value, foundation, path: "$")
        case (.success, .failure(let error)):
            let quirks = JSONQuirks(data)
            try fuzzCheck(quirks.hasUnpairedSurrogateEscape || quirks.hasOverflowingNumber,
                          "the cache reader accepts what Foundation refuses (\(foundationMessage(error)))")
        case (.failure(let error), .success):
            try fuzzCheck(data.contains(0) || isTrailingComma(data, at: error.offset),
                          "the cache reader refuses what Foundation accepts (\(error))")
        }
    }

    /// The whole input as one value, read by the cache reader.
    static func readWithCacheReader(_ data: Data) -> Result<JSONValue, CacheJSONError> {
        data.withUnsafeBytes { raw in
            var reader = CacheJSONReader(raw.bindMemory(to: UInt8.self))
            do {
                let value = try reader.readValue()
                try reader.expectEnd()
                return .success(value)
            } catch let error as CacheJSONError {
                return .failure(error)
            } catch {
                return .failure(CacheJSONError(message: "\(error)", offset: -1))
            }
        }
    }

    private static func foundationMessage(_ error: any Error) -> String {
        ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
    }

    /// Whether the byte at `offset` is `]` or `}` and the previous non-blank byte is `,`.
    static func isTrailingComma(_ data: Data, at offset: Int) -> Bool {
        let bytes = [UInt8](data)
        guard offset > 0, offset < bytes.count, bytes[offset] == UInt8(ascii: "]") || bytes[offset] == UInt8(ascii: "}")
        else { return false }
        var index = offset - 1
        while index >= 0, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index -= 1 }
        return index >= 0 && bytes[index] == UInt8(ascii: ",")
    }

    private static let booleanType = type(of: NSNumber(value: true))

    private static func isFoundationBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
        return type(of: number) == booleanType
        #endif
    }

    /// Compares a value of the cache reader with Foundation's, using only `JSONValue`'s accessors (so a change of its
    /// number representation keeps the comparison semantic).
    static func compare(_ ours: JSONValue, _ theirs: Any, path: String) throws {
        if let string = ours.stringValue {
            try fuzzCheck((theirs as? String) == string, "\(path): the string differs from Foundation's")
        } else if ours == .bool(true) || ours == .bool(false) {
            try fuzzCheck(isFoundationBoolean(theirs) && (theirs as? NSNumber)?.boolValue == (ours == .bool(true)),
                          "\(path): the boolean differs from Foundation's")
        } else if ours == .null {
            try fuzzCheck(theirs is NSNull, "\(path): null differs from Foundation's \(type(of: theirs))")
        } else if let items = ours.arrayValue {
            guard let other = theirs as? [Any] else { throw FuzzFailure("\(path): an array where Foundation has \(type(of: theirs))") }
            try fuzzCheck(items.count == other.count, "\(path): \(items.count) items where Foundation has \(other.count)")
            for (index, item) in items.enumerated() { try compare(item, other[index], path: "\(path)[\(index)]") }
        } else if let members = ours.objectValue {
            guard let other = theirs as? [String: Any] else {
                throw FuzzFailure("\(path): an object where Foundation has \(type(of: theirs))")
            }
            try fuzzCheck(Set(members.keys) == Set(other.keys), "\(path): the member names differ from Foundation's")
            for name in members.keys.sorted() {
                guard let item = members[name], let otherItem = other[name] else { continue }
                try compare(item, otherItem, path: "\(path).\(name.debugDescription)")
            }
        } else if let number = ours.doubleValue {
            guard let other = theirs as? NSNumber, !isFoundationBoolean(theirs) else {
                throw FuzzFailure("\(path): a number where Foundation has \(type(of: theirs))")
            }
            if number.isInfinite { return }  // an overflowing literal: see the type's documentation
            let value = other.doubleValue
            if number == value { return }
            try fuzzCheck(other is NSDecimalNumber && abs(number - value) <= abs(number) * 1e-12,
                          "\(path): the number \(number) differs from Foundation's \(value)")
        } else {
            throw FuzzFailure("\(path): a value of an unknown kind")
        }
    }
}

/// Facts about JSON text that explain an intended difference (see ``JSONDifferential``).
struct JSONQuirks {
    /// A string holds `\uD800`–`\uDFFF` not forming a high-low pair.
    var hasUnpairedSurrogateEscape = false
    /// A number literal (outside strings) is beyond Double's range.
    var hasOverflowingNumber = false

    init(_ data: Data) {
        let bytes = [UInt8](data)
        var index = 0
        var inString = false
        var pendingHigh = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\"") {
                    if pendingHigh { hasUnpairedSurrogateEscape = true }
                    pendingHigh = false
                    inString = false
                    index += 1
                } else if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    if bytes[index + 1] == UInt8(ascii: "u"), index + 6 <= bytes.count,
                       bytes[(index + 2)..<(index + 6)].allSatisfy({ UInt8(ascii: "0") <= $0 && $0 <= UInt8(ascii: "9")
                           || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }),
                       let unit = UInt32(String(decoding: bytes[(index + 2)..<(index + 6)], as: UTF8.self), radix: 16) {
                        let isHigh = (0xD800..<0xDC00).contains(unit)
                        let isLow = (0xDC00..<0xE000).contains(unit)
                        if pendingHigh && !isLow || !pendingHigh && isLow { hasUnpairedSurrogateEscape = true }
                        pendingHigh = isHigh
                        index += 6
                    } else {
                        if pendingHigh { hasUnpairedSurrogateEscape = true }
                        pendingHigh = false
                        index += 2
                    }
                } else {
                    if pendingHigh { hasUnpairedSurrogateEscape = true }
                    pendingHigh = false
                    index += 1
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                index += 1
            } else if byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte) {
                let start = index
                while index < bytes.count, "0123456789+-.eE".utf8.contains(bytes[index]) { index += 1 }
                if let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isInfinite {
                    hasOverflowingNumber = true
                }
            } else {
                index += 1
            }
        }
    }
}
