package import Foundation

extension BinaryPropertyList {
    /// `value` as a binary property list (`bplist00`), as Foundation's writer lays it out: the objects one after the
    /// other (each value its own object, no sharing), then the offset table, then the 32-byte trailer, with offset
    /// and reference sizes as small as the data allows. ``parse(_:)`` reads it back equal.
    package static func serialize(_ value: PropertyListValue) -> Data {
        var writer = Writer()
        _ = writer.add(value)
        return writer.finish()
    }

    private struct Writer {
        /// The objects, in index order, each with the indices it refers to (filled in once all are numbered).
        var objects: [(marker: [UInt8], references: [Int])] = []

        /// Numbers `value` and what it contains (depth first); returns its index.
        mutating func add(_ value: PropertyListValue) -> Int {
            let index = objects.count
            objects.append(([], []))
            switch value {
            case .null: objects[index].marker = [0x00]
            case .bool(let flag): objects[index].marker = [flag ? 0x09 : 0x08]
            case .integer(let number): objects[index].marker = Self.integer(number)
            case .real(let number): objects[index].marker = [0x23] + Self.bigEndian(number.bitPattern, 8)
            case .date(let seconds): objects[index].marker = [0x33] + Self.bigEndian(seconds.bitPattern, 8)
            case .data(let data): objects[index].marker = Self.header(0x4, data.count) + Array(data)
            case .string(let text):
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    objects[index].marker = Self.header(0x5, text.utf8.count) + Array(text.utf8)
                } else {
                    let units = Array(text.utf16)
                    objects[index].marker = Self.header(0x6, units.count) + units.flatMap { Self.bigEndian(UInt64($0), 2) }
                }
            case .uid(let reference):
                let bytes = Self.minimal(reference)
                objects[index].marker = [0x80 | UInt8(bytes.count - 1)] + bytes
            case .array(let elements):
                objects[index].marker = Self.header(0xA, elements.count)
                objects[index].references = elements.map { add($0) }
            case .dictionary(let entries):
                let sorted = entries.sorted { $0.key < $1.key }
                objects[index].marker = Self.header(0xD, sorted.count)
                let keys = sorted.map { add(.string($0.key)) }
                let values = sorted.map { add($0.value) }
                objects[index].references = keys + values
            }
            return index
        }

        func finish() -> Data {
            let referenceSize = Self.minimal(UInt64(max(objects.count - 1, 0))).count
            var body: [UInt8] = Array("bplist00".utf8)
            var offsets: [Int] = []
            for object in objects {
                offsets.append(body.count)
                body += object.marker
                for reference in object.references { body += Self.bigEndian(UInt64(reference), referenceSize) }
            }
            let tableOffset = body.count
            let offsetSize = Self.minimal(UInt64(max(offsets.last ?? 0, 1))).count
            for offset in offsets { body += Self.bigEndian(UInt64(offset), offsetSize) }
            body += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            body += Self.bigEndian(UInt64(objects.count), 8) + Self.bigEndian(0, 8) + Self.bigEndian(UInt64(tableOffset), 8)
            return Data(body)
        }

        /// A marker with a length: in the low nibble when it fits, else `0xF` and an integer object.
        static func header(_ type: UInt8, _ length: Int) -> [UInt8] {
            length < 15 ? [type << 4 | UInt8(length)] : [type << 4 | 0x0F] + integer(Int64(length))
        }

        /// An integer object: 1, 2, 4 or 8 bytes (negative numbers take 8, as Foundation writes them).
        static func integer(_ number: Int64) -> [UInt8] {
            let unsigned = UInt64(bitPattern: number)
            let size = number < 0 ? 8 : (number <= 0xFF ? 1 : number <= 0xFFFF ? 2 : number <= 0xFFFF_FFFF ? 4 : 8)
            let power: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
            return [0x10 | power] + bigEndian(unsigned, size)
        }

        /// The fewest bytes (1, 2, 4 or 8) that hold `value`, big-endian.
        static func minimal(_ value: UInt64) -> [UInt8] {
            let size = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
            return bigEndian(value, size)
        }

        static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
        }
    }
}
