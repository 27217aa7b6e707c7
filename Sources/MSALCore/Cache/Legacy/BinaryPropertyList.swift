package import Foundation

/// A value of a binary property list (`bplist00`), the encoding of Apple's keyed archives, in which ADAL keeps its
/// legacy token cache items (the keychain items of iOS, the serialized cache of macOS). Only what those archives use:
/// a dictionary's keys are strings.
package indirect enum PropertyListValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data(Data)
    case string(String)
    /// A keyed archive's object reference (`CF$UID`).
    case uid(UInt64)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

/// Reads a binary property list with our own code (no Objective-C runtime, the same on every platform): the header
/// `bplist00`, the 32-byte trailer (offset-table entry size, object-reference size, object count, top object,
/// offset-table offset), the offset table, and the objects by their marker byte (high nibble the type, low nibble
/// a small value or length, `0xF` meaning an integer object with the length follows).
///
/// The input is outside data: every offset, count and size is checked against the input, nesting is bounded, a
/// reference cycle is refused, and the number of objects decoded (shared references included) is bounded, so that no
/// input traps, runs away or takes quadratic time. Failures are ``BinaryPropertyList/Failure``.
package enum BinaryPropertyList {
    package struct Failure: Error, Equatable, Sendable {
        package let reason: String
    }

    /// The largest input read.
    static let maximumSize = 8 << 20
    /// The deepest nesting of arrays and dictionaries.
    static let maximumDepth = 64
    /// The most objects decoded, shared references counted each time.
    static let maximumDecoded = 200_000

    /// The top object of `data`.
    package static func parse(_ data: Data) throws(Failure) -> PropertyListValue {
        var reader = try Reader(Array(data))
        return try reader.object(reader.top, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let count: Int
        let top: Int
        let tableOffset: Int
        var decoded = 0
        var open: Set<Int> = []

        init(_ bytes: [UInt8]) throws(Failure) {
            guard bytes.count <= BinaryPropertyList.maximumSize else { throw Failure(reason: "larger than 8 MiB") }
            guard bytes.count >= 8 + 32, bytes[0..<8].elementsEqual(Array("bplist00".utf8)) else {
                throw Failure(reason: "not a binary property list")
            }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw Failure(reason: "the trailer's sizes are out of range")
            }
            let count = Self.unsigned(bytes, trailer + 8, 8), top = Self.unsigned(bytes, trailer + 16, 8)
            let table = Self.unsigned(bytes, trailer + 24, 8)
            guard count >= 1, count <= UInt64(bytes.count), top < count, table >= 8, table <= UInt64(trailer),
                  UInt64(trailer) - table >= count * UInt64(offsetSize) else {
                throw Failure(reason: "the trailer does not describe the data")
            }
            self.count = Int(count)
            self.top = Int(top)
            self.tableOffset = Int(table)
        }

        static func unsigned(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in at..<(at + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        /// Where object `index` starts.
        func offset(of index: Int) throws(Failure) -> Int {
            let offset = Self.unsigned(bytes, tableOffset + index * offsetSize, offsetSize)
            guard offset >= 8, offset < UInt64(tableOffset) else { throw Failure(reason: "an object offset is out of range") }
            return Int(offset)
        }

        /// `length` bytes at `at`, inside the object area.
        func slice(_ at: Int, _ length: Int) throws(Failure) -> ArraySlice<UInt8> {
            guard length >= 0, at <= tableOffset, length <= tableOffset - at else {
                throw Failure(reason: "an object runs past the object area")
            }
            return bytes[at..<(at + length)]
        }

        /// The length of an object whose marker is at `at`: its low nibble, or the integer object that follows.
        /// Returns the length and where the content starts.
        func length(_ at: Int) throws(Failure) -> (Int, Int) {
            let nibble = Int(bytes[at] & 0x0F)
            guard nibble == 0x0F else { return (nibble, at + 1) }
            let marker = try slice(at + 1, 1).first!
            guard marker & 0xF0 == 0x10 else { throw Failure(reason: "a length is not an integer") }
            let size = 1 << Int(marker & 0x0F)
            guard size <= 8 else { throw Failure(reason: "a length is too large") }
            _ = try slice(at + 2, size)
            let value = Self.unsigned(bytes, at + 2, size)
            guard value <= UInt64(tableOffset) else { throw Failure(reason: "a length is larger than the data") }
            return (Int(value), at + 2 + size)
        }

        mutating func object(_ index: Int, depth: Int) throws(Failure) -> PropertyListValue {
            guard index >= 0, index < count else { throw Failure(reason: "an object reference is out of range") }
            guard depth <= BinaryPropertyList.maximumDepth else { throw Failure(reason: "nested too deeply") }
            decoded += 1
            guard decoded <= BinaryPropertyList.maximumDecoded else { throw Failure(reason: "too many objects") }
            let at = try offset(of: index)
            let marker = bytes[at]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw Failure(reason: "an unknown simple object")
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                guard size <= 8 else { throw Failure(reason: "an integer larger than 64 bits") }
                _ = try slice(at + 1, size)
                let raw = Self.unsigned(bytes, at + 1, size)
                // 1, 2 and 4 bytes are unsigned; 8 bytes are two's complement.
                return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2, 0x3:
                let size = marker >> 4 == 0x3 ? 8 : 1 << Int(marker & 0x0F)
                guard size == 4 || size == 8, marker >> 4 == 0x2 || marker == 0x33 else {
                    throw Failure(reason: "a real or date of an unknown size")
                }
                _ = try slice(at + 1, size)
                let raw = Self.unsigned(bytes, at + 1, size)
                let value = size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)
                return marker >> 4 == 0x3 ? .date(value) : .real(value)
            case 0x4:
                let (length, start) = try length(at)
                return .data(Data(try slice(start, length)))
            case 0x5:
                let (length, start) = try length(at)
                let content = try slice(start, length)
                guard content.allSatisfy({ $0 < 0x80 }) else { throw Failure(reason: "an ASCII string is not ASCII") }
                return .string(String(decoding: content, as: UTF8.self))
            case 0x6:
                let (length, start) = try length(at)
                guard length <= Int.max / 2 else { throw Failure(reason: "a string is too long") }
                let content = try slice(start, length * 2)
                var units: [UInt16] = []
                units.reserveCapacity(length)
                var index = content.startIndex
                while index < content.endIndex {
                    units.append(UInt16(content[index]) << 8 | UInt16(content[index + 1]))
                    index += 2
                }
                // Unpaired surrogates become U+FFFD.
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                _ = try slice(at + 1, size)
                return .uid(Self.unsigned(bytes, at + 1, size))
            case 0xA, 0xC:
                let (length, start) = try length(at)
                guard length <= count else { throw Failure(reason: "an array is longer than the data") }
                _ = try slice(start, length * referenceSize)
                guard open.insert(index).inserted else { throw Failure(reason: "an array contains itself") }
                defer { open.remove(index) }
                var items: [PropertyListValue] = []
                for item in 0..<length {
                    let reference = Int(Self.unsigned(bytes, start + item * referenceSize, referenceSize))
                    items.append(try object(reference, depth: depth + 1))
                }
                return .array(items)
            case 0xD:
                let (length, start) = try length(at)
                guard length <= count else { throw Failure(reason: "a dictionary is longer than the data") }
                _ = try slice(start, 2 * length * referenceSize)
                guard open.insert(index).inserted else { throw Failure(reason: "a dictionary contains itself") }
                defer { open.remove(index) }
                var entries: [String: PropertyListValue] = [:]
                for entry in 0..<length {
                    let keyReference = Int(Self.unsigned(bytes, start + entry * referenceSize, referenceSize))
                    let valueReference = Int(Self.unsigned(bytes, start + (length + entry) * referenceSize, referenceSize))
                    guard case .string(let key) = try object(keyReference, depth: depth + 1) else {
                        throw Failure(reason: "a dictionary key is not a string")
                    }
                    entries[key] = try object(valueReference, depth: depth + 1)
                }
                return .dictionary(entries)
            default:
                throw Failure(reason: "an unknown object type")
            }
        }
    }
}
