import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// HTTP dates (RFC 9110 §5.6.7), as the `Date` and `Retry-After` headers carry them.
@Suite("HTTP dates")
struct HTTPDateTests {
    static let reference = Date(timeIntervalSince1970: 784_111_777) // 1994-11-06 08:49:37 UTC

    @Test("The three forms a recipient must accept", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func acceptedForms(_ text: String) {
        #expect(HTTPDate.parse(text) == Self.reference)
    }

    @Test("Dates across leap years and centuries")
    func calendar() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 23:59:59 GMT") == Date(timeIntervalSince1970: 951_868_799))
        #expect(HTTPDate.parse("Mon, 23 Nov 2026 14:35:42 GMT") == Date(timeIntervalSince1970: 1_795_444_542))
    }

    @Test("Anything else is nil, never a trap", arguments: [
        "", "GMT", "Sun, 6 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT" + String(repeating: " ", count: 100), "Sun, 06 Nov -994 08:49:37 GMT",
        "Sun, ٠٦ Nov 1994 08:49:37 GMT",
    ])
    func refused(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("Dates Foundation formats as IMF-fixdate parse back to the same instant")
    func roundTrip() {
        for seconds in stride(from: -86_400 * 365 * 30, to: 86_400 * 365 * 80, by: 7_654_321) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = MSALScriptedIdentityProvider.httpDate(date)
            #expect(HTTPDate.parse(text) == date, "\(text)")
        }
    }
}
