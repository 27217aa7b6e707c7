import Foundation
import Testing
@testable import MSAL

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
            == .array([.number(1), .number(-2500), .number(0), .bool(true), .bool(false), .null, .object([:]), .array([])]))
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
