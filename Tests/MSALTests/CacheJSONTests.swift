import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Token cache JSON reader and writer")
struct CacheJSONTests {
    private func roundTrip(_ text: String) throws -> JSONValue {
        try Data(text.utf8).withUnsafeBytes { raw in
            var reader = CacheJSONReader(raw.bindMemory(to: UInt8.self))
            let value = try reader.readValue()
            try reader.expectEnd()
            return value
        }
    }

    @Test func readsEscapesAndSurrogatePairs() throws {
        #expect(try roundTrip(#""a\"b\\c\/d\n\t\r\b\f\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\t\r\u{8}\u{c}é😀"))
        #expect(try roundTrip(#""\ud83d""#) == .string("\u{FFFD}"))
        #expect(try roundTrip("\"héllo\"") == .string("héllo"))
        #expect(try roundTrip(" [1, -2.5e3, 0, true, false, null, {}, []] ")
            == .array([.number(1), .numberText("-2.5e3"), .number(0), .bool(true), .bool(false), .null, .object([:]), .array([])]))
    }

    private func read(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = CacheJSONReader(buffer)
            let value = try reader.readValue()
            try reader.expectEnd()
            return value
        }
    }

    private func written(_ value: JSONValue) -> String {
        var writer = CacheJSONWriter()
        writer.value(value, indent: 0)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Numbers in fields MSAL does not own are written back exactly as they were read.
    @Test(arguments: ["9007199254740993", "-9007199254740993", "123456789012345678901234567890", "-0", "-0.0", "0.0",
                      "1.0", "1e3", "1E+3", "2.50", "0.1", "1.5", "12", "-7", "1e400", "5e-324"])
    func numbersSurviveARewriteByteForByte(_ text: String) throws {
        #expect(written(try roundTrip(text)) == text)
        #expect(written(try roundTrip("[\(text)]")) == "[\n    \(text)\n]")
    }

    @Test func numbersTheWriterReproducesStayPlainNumbers() throws {
        #expect(try roundTrip("12") == .number(12))
        #expect(try roundTrip("1.5") == .number(1.5))
        #expect(try roundTrip("1700000000") == .number(1_700_000_000))
        #expect(try roundTrip("9007199254740993") == .numberText("9007199254740993"))
        #expect(try roundTrip("-0") == .numberText("-0"))
        #expect(try roundTrip("1.0").doubleValue == 1)
        #expect(written(.number(-0.0)) == "-0.0")
        // Text that is not a JSON number (built by hand) is never written as such.
        #expect(written(.numberText("12abc")) == "null")
        #expect(written(.numberText(" 1")) == "null")
    }

    /// Invalid UTF-8 is refused, never replaced by U+FFFD (which would change another SDK's data on rewrite).
    @Test(arguments: [[0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0xF0, 0x9F, 0x98, 0x22],
                      [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0xFF, 0x22],
                      [0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D]] as [[UInt8]])
    func invalidUTF8IsRefused(_ bytes: [UInt8]) {
        #expect(throws: CacheJSONError.self) { try read(bytes) }
    }

    @Test func validMultibyteUTF8IsRead() throws {
        #expect(try read(Array("{\"é\": \"😀 \\n é\"}".utf8)) == .object(["é": .string("😀 \n é")]))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":1,}", "01", "\"a", "tru", "{\"a\" 1}", "1 2", "\"\u{1}\"", "[1e]",
                      String(repeating: "[", count: 600)])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: CacheJSONError.self) { try roundTrip(text) }
    }

    @Test func writesLikePythonJSONDumpsWithIndent4() {
        var writer = CacheJSONWriter()
        writer.value(.object(["b": .array([.number(1), .number(2.5), .null]), "a": .object([:]), "c": .array([]),
                              "é": .string("\"\\\n\u{1}é😀/")]), indent: 0)
        let expected = "{\n    \"a\": {},\n    \"b\": [\n        1,\n        2.5,\n        null\n    ],\n    \"c\": [],\n"
            + "    \"\\u00e9\": \"\\\"\\\\\\n\\u0001\\u00e9\\ud83d\\ude00/\"\n}"
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test func parseRejectsNonObjectsWithATypedError() {
        for text in ["[]", "\"x\"", "not json", "{\"AccessToken\": {"] {
            #expect {
                try TokenCacheDocument.parse(Data(text.utf8))
            } throws: { error in
                guard let info = error as? MSALErrorInfo else { return false }
                return info.code == .internal && info.internalCode == .internalErrorUnexpected
            }
        }
        #expect((try? TokenCacheDocument.parse(Data())) != nil)
    }
}
