import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// The hand-written cache JSON reader against Foundation's `JSONSerialization` on generated and mutated documents:
/// the same accept/reject decision and the same values (`JSONDifferential` in FuzzHarness/ lists the intended
/// differences and how each is recognised).
@Suite("Cache JSON reader against JSONSerialization")
struct CacheJSONDifferentialTests {
    @Test("Generated documents: both accept them and read the same values")
    func generatedDocuments() throws {
        var random = SplitMix64(seed: 0x6D73_616C_6A73_6F6E)
        var failures: [String] = []
        for _ in 0..<3000 {
            let text = JSONDocumentGenerator.document(&random)
            let data = Data(text.utf8)
            if case .failure(let error) = JSONDifferential.readWithCacheReader(data) {
                failures.append("the cache reader refused a generated document (\(error)): \(text.prefix(200))")
                continue
            }
            do { try JSONDifferential.check(data) } catch { failures.append("\(error): \(text.prefix(200))") }
        }
        #expect(failures.isEmpty, "\(failures.count) disagreements, first: \(failures.first ?? "")")
    }

    @Test("Mutated documents: the same decision, and the same values for what both accept")
    func mutatedDocuments() throws {
        var random = SplitMix64(seed: 0x6D75_7461_7465)
        var failures: [String] = []
        var bothAccepted = 0
        var bothRefused = 0
        let cacheDocument = [UInt8](CacheFuzzing.signInCacheDocument())
        for round in 0..<1500 {
            let base = round % 3 == 0 ? cacheDocument : Array(JSONDocumentGenerator.document(&random).utf8)
            var bytes = base
            for _ in 0...random.next(upTo: 3) { JSONMutator.mutate(&bytes, &random) }
            let data = Data(bytes)
            let ours = JSONDifferential.readWithCacheReader(data)
            let theirs = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            switch (ours, theirs) {
            case (.success, .some): bothAccepted += 1
            case (.failure, .none): bothRefused += 1
            default: break
            }
            do {
                try JSONDifferential.check(data)
                try checkDocumentDecision(data, foundation: theirs)
            } catch {
                failures.append("\(error): \(String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) disagreements, first: \(failures.first ?? "")")
        // The mutations must produce both outcomes in numbers, or this test compares nothing.
        #expect(bothAccepted > 200 && bothRefused > 200, "accepted by both: \(bothAccepted), refused by both: \(bothRefused)")
    }

    /// A document Foundation reads as an object whose credential sections are objects is a cache document
    /// (unless it is one of the intended differences, which the reader-level check has already explained).
    private func checkDocumentDecision(_ data: Data, foundation: Any?) throws {
        guard let object = foundation as? [String: Any],
              case .success = JSONDifferential.readWithCacheReader(data) else { return }
        let sections: Set<String> = ["accesstoken", "refreshtoken", "idtoken", "account", "appmetadata"]
        guard object.allSatisfy({ !sections.contains($0.key.lowercased()) || $0.value is [String: Any] }) else { return }
        do {
            _ = try TokenCacheDocument.parse(data)
        } catch {
            throw FuzzFailure("TokenCacheDocument.parse refused a document with object sections: \(error)")
        }
    }

    @Test("Each intended difference is recognised", arguments: [
        "[1,]", "{\"a\":1,}", "[1 ,\n ]", "\"\\ud800\"", "[\"\\udc00x\"]", "[1e400]", "{\"n\":-1e999}",
    ])
    func intendedDifferences(text: String) throws {
        let data = Data(text.utf8)
        let ours = try? JSONDifferential.readWithCacheReader(data).get()
        let theirs = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        // The two really decide differently here, so the check passes only through the documented exception.
        #expect((ours == nil) != (theirs == nil))
        try JSONDifferential.check(data)
    }

    @Test("Text that is not UTF-8: UTF-16 is Foundation's intended difference; invalid UTF-8 is refused by both")
    func encodings() throws {
        let utf16 = "[1]".data(using: .utf16LittleEndian)!
        #expect(throws: (any Error).self) { try JSONDifferential.readWithCacheReader(utf16).get() }
        #expect((try? JSONSerialization.jsonObject(with: utf16)) != nil)
        try JSONDifferential.check(utf16)
        for invalid in [Data([0x22, 0x61, 0xFF, 0x22]), Data([0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D]), Data([0x22, 0xED, 0xA0, 0x80, 0x22])] {
            #expect(throws: (any Error).self) { try JSONDifferential.readWithCacheReader(invalid).get() }
            try JSONDifferential.check(invalid)
        }
    }

    @Test("A real disagreement is reported")
    func disagreementsAreReported() {
        #expect(throws: FuzzFailure.self) { try JSONDifferential.compare(.string("a"), "b", path: "$") }
        #expect(throws: FuzzFailure.self) { try JSONDifferential.compare(.number(1), NSNumber(value: true), path: "$") }
        #expect(throws: FuzzFailure.self) { try JSONDifferential.compare(.number(1), NSNumber(value: 2), path: "$") }
        #expect(throws: FuzzFailure.self) { try JSONDifferential.compare(.object(["a": .null]), ["b": NSNull()], path: "$") }
        #expect(throws: FuzzFailure.self) { try JSONDifferential.compare(.array([.null]), [NSNull(), NSNull()], path: "$") }
        // A trailing-comma look-alike that is another error is not excused.
        #expect(!JSONDifferential.isTrailingComma(Data("[1 2]".utf8), at: 3))
        #expect(JSONDifferential.isTrailingComma(Data("[1, ]".utf8), at: 4))
    }
}

/// A small deterministic random source (SplitMix64), so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(upTo bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Valid JSON text with the shapes that trip readers: escapes, surrogate pairs, non-ASCII, long and big numbers,
/// exponents, negative zero, deep nesting, duplicate names, odd whitespace.
enum JSONDocumentGenerator {
    static func document(_ random: inout SplitMix64) -> String {
        var out = ""
        value(&out, depth: 0, &random)
        return whitespace(&random) + out + whitespace(&random)
    }

    static func whitespace(_ random: inout SplitMix64) -> String {
        guard random.next(upTo: 3) == 0 else { return "" }
        return String((0..<random.next(upTo: 4)).map { _ in [" ", "\n", "\r", "\t"][random.next(upTo: 4)] })
    }

    static func value(_ out: inout String, depth: Int, _ random: inout SplitMix64) {
        let kind = depth > 5 ? random.next(upTo: 5) : random.next(upTo: 7)
        switch kind {
        case 0: string(&out, &random)
        case 1: number(&out, &random)
        case 2: out += ["true", "false", "null"][random.next(upTo: 3)]
        case 3, 4: if depth > 5 { string(&out, &random) } else { fallthrough }
        case 5:
            out += "[" + whitespace(&random)
            for index in 0..<random.next(upTo: 5) {
                if index > 0 { out += "," + whitespace(&random) }
                value(&out, depth: depth + 1, &random)
            }
            out += whitespace(&random) + "]"
        default:
            out += "{" + whitespace(&random)
            var names: [String] = []
            for index in 0..<random.next(upTo: 5) {
                if index > 0 { out += "," + whitespace(&random) }
                if !names.isEmpty, random.next(upTo: 6) == 0 {
                    out += names[random.next(upTo: names.count)]  // a duplicate name
                } else {
                    var name = ""
                    string(&name, &random)
                    names.append(name)
                    out += name
                }
                out += whitespace(&random) + ":" + whitespace(&random)
                value(&out, depth: depth + 1, &random)
            }
            out += whitespace(&random) + "}"
        }
    }

    static let pieces = ["a", "Z", "0", " ", "é", "中", "😀", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
                         "\\u0000", "\\u001f", "\\u00e9", "\\u4E2D", "\\uD83D\\uDE00", "\\uFFFF", "/", "'", "%", "\u{7F}",
                         "access_token", "home_account_id", "login.microsoftonline.com", "\u{2028}"]

    static func string(_ out: inout String, _ random: inout SplitMix64) {
        out += "\""
        for _ in 0..<random.next(upTo: 8) { out += pieces[random.next(upTo: pieces.count)] }
        out += "\""
    }

    static func number(_ out: inout String, _ random: inout SplitMix64) {
        let special = ["0", "-0", "-0.0", "0.0", "9007199254740993", "-9007199254740993", "9223372036854775807",
                       "9223372036854775808", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
                       "1e308", "2.2250738585072014e-308", "4.9e-324", "1e-400", "0.1", "1E+2", "1e-2", "1.5e10",
                       "1700000000", "3599"]
        if random.next(upTo: 3) == 0 { out += special[random.next(upTo: special.count)]; return }
        if random.next(upTo: 2) == 0 { out += "-" }
        let digits = 1 + random.next(upTo: 22)
        out += random.next(upTo: 5) == 0 ? "0" : String(1 + random.next(upTo: 9))
            + String((1..<digits).map { _ in Character(String(random.next(upTo: 10))) })
        if random.next(upTo: 3) == 0 {
            out += "." + String((0...random.next(upTo: 18)).map { _ in Character(String(random.next(upTo: 10))) })
        }
        if random.next(upTo: 4) == 0 {
            out += ["e", "E"][random.next(upTo: 2)] + ["", "+", "-"][random.next(upTo: 3)] + String(random.next(upTo: 330))
        }
    }
}

/// Byte-level mutations like a fuzzer's: replace, insert or delete a byte, copy a slice, truncate.
enum JSONMutator {
    static let interesting: [UInt8] = Array("\"\\{}[],:0123456789eE-+. \n\tu/truefalsn".utf8) + [0x00, 0x7F, 0xC3, 0xA9, 0xED, 0xFF]

    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64) {
        guard !bytes.isEmpty else { bytes = [interesting[random.next(upTo: interesting.count)]]; return }
        let at = random.next(upTo: bytes.count)
        switch random.next(upTo: 6) {
        case 0: bytes[at] = interesting[random.next(upTo: interesting.count)]
        case 1: bytes.insert(interesting[random.next(upTo: interesting.count)], at: at)
        case 2: bytes.remove(at: at)
        case 3:
            let length = min(bytes.count - at, 1 + random.next(upTo: 16))
            bytes.insert(contentsOf: bytes[at..<(at + length)], at: random.next(upTo: bytes.count))
        case 4: bytes.removeSubrange(at...)
        default: bytes[at] ^= UInt8(1 << random.next(upTo: 8))
        }
    }
}
