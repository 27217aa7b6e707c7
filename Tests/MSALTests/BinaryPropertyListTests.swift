import Foundation
import Testing
@testable import MSALCore

/// The binary property list reader (the encoding of ADAL's archived cache items) against Foundation's own writer,
/// and hostile inputs: typed errors, never a trap.
@Suite("Binary property lists")
struct BinaryPropertyListTests {
    static func binary(_ value: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    }

    @Test func foundationsBinaryPlistsAreReadAsWritten() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let value: [String: Any] = [
            "ascii": "MSOpenTech.ADAL.1", "unicode": "Zoë 日本", "small": 7, "negative": -42, "large": Int64.max,
            "real": 2.5, "true": true, "false": false, "data": Data([0, 1, 2, 255]), "date": date,
            "array": ["a", 1, ["nested": "x"]], "empty": [String: Any](),
        ]
        let parsed = try BinaryPropertyList.parse(try Self.binary(value))
        guard case .dictionary(let object) = parsed else { Issue.record("not a dictionary: \(parsed)"); return }
        #expect(object["ascii"] == .string("MSOpenTech.ADAL.1"))
        #expect(object["unicode"] == .string("Zoë 日本"))
        #expect(object["small"] == .integer(7) && object["negative"] == .integer(-42) && object["large"] == .integer(.max))
        #expect(object["real"] == .real(2.5))
        #expect(object["true"] == .bool(true) && object["false"] == .bool(false))
        #expect(object["data"] == .data(Data([0, 1, 2, 255])))
        #expect(object["date"] == .date(123_456.5))
        #expect(object["array"] == .array([.string("a"), .integer(1), .dictionary(["nested": .string("x")])]))
        #expect(object["empty"] == .dictionary([:]))
    }

    @Test func longStringsAndDataUseTheExtendedLength() throws {
        let long = String(repeating: "é", count: 300), bytes = Data(repeating: 7, count: 70_000)
        #expect(try BinaryPropertyList.parse(try Self.binary([long])) == .array([.string(long)]))
        #expect(try BinaryPropertyList.parse(try Self.binary([bytes])) == .array([.data(bytes)]))
    }

    @Test func hostileInputsAreTypedErrors() throws {
        let good = try Self.binary(["k": ["a", "b"]])
        var inputs: [Data] = [Data(), Data("bplist00".utf8), Data("bplist01".utf8 + [UInt8](repeating: 0, count: 40)),
                              Data("bplist00".utf8 + [UInt8](repeating: 0xFF, count: 40))]
        // Every truncation, and every single byte changed to 0xFF or 0x00.
        for length in 0..<good.count { inputs.append(good.prefix(length)) }
        for index in 0..<good.count {
            for byte: UInt8 in [0x00, 0xFF, 0x0F, 0xAF, 0xDF] {
                var changed = good
                changed[changed.startIndex + index] = byte
                inputs.append(changed)
            }
        }
        for input in inputs {
            do { _ = try BinaryPropertyList.parse(input) } catch { #expect(!error.reason.isEmpty) }
        }
    }

    @Test func aCycleAndAnExponentialDAGAreRefused() throws {
        // An array (object 0) that refers to itself.
        var cycle = Data("bplist00".utf8)
        cycle += [0xA1, 0x00]                      // object 0 at offset 8: array of 1, ref 0
        let table = cycle.count
        cycle += [0x08]                            // offset table: object 0 at 8
        cycle += [0, 0, 0, 0, 0, 0, 1, 1] + Self.be(1) + Self.be(0) + Self.be(UInt64(table))
        #expect(throws: BinaryPropertyList.Failure.self) { try BinaryPropertyList.parse(cycle) }

        // 40 levels, each an array referring twice to the next: 2^40 paths, refused by the decode bound.
        var dag = Data("bplist00".utf8)
        var offsets: [UInt8] = []
        for level in 0..<40 {
            offsets.append(UInt8(dag.count))
            dag += [0xA2, UInt8(level + 1), UInt8(level + 1)]
        }
        offsets.append(UInt8(dag.count))
        dag += [0x09]
        let dagTable = dag.count
        dag += offsets
        dag += [0, 0, 0, 0, 0, 0, 1, 1] + Self.be(41) + Self.be(0) + Self.be(UInt64(dagTable))
        #expect(throws: BinaryPropertyList.Failure.self) { try BinaryPropertyList.parse(dag) }
    }

    @Test func pythonsBinaryPlistsAreReadToo() throws {
        // Written by Python's plistlib (Fuzz/Corpus/keychain-item): a keyed archive's shape, with UIDs.
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/keychain-item")
        let archive = try BinaryPropertyList.parse(try Data(contentsOf: corpus.appendingPathComponent("adal-legacy-archive.bplist")))
        guard case .dictionary(let root) = archive, case .array(let objects)? = root["$objects"] else {
            Issue.record("not a keyed archive: \(archive)"); return
        }
        #expect(root["$archiver"] == .string("NSKeyedArchiver") && root["$version"] == .integer(100_000))
        #expect(root["$top"] == .dictionary(["root": .uid(1)]))
        #expect(objects.first == .string("$null") && objects.count == 4)
        #expect(objects[2] == .string("refresh-token-value"))
        let types = try BinaryPropertyList.parse(try Data(contentsOf: corpus.appendingPathComponent("bplist-types.bplist")))
        guard case .dictionary(let values) = types else { Issue.record("not a dictionary"); return }
        #expect(values["s"] == .string("Zoë") && values["i"] == .integer(-5) && values["big"] == .integer(1 << 62))
        #expect(values["a"] == .array([.bool(true), .bool(false)]) && values["b"] == .data(Data([0, 1])))
    }

    static func be(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
