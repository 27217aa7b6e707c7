package import Foundation
import MSALSupport

/// `application/x-www-form-urlencoded` and URL query coding as the client uses it (`MSALSupport.FormCoding`).
package enum FormEncoding {
    /// Percent-encodes everything but the unreserved characters (RFC 3986 §2.3).
    package static func escape(_ value: String) -> String { FormCoding.escape(value) }

    /// Encodes ordered pairs as `a=1&b=2`.
    package static func encode(_ pairs: [(String, String)]) -> String { FormCoding.encode(pairs) }

    /// Appends ordered pairs to `url`'s query.
    package static func url(_ base: URL, adding pairs: [(String, String)]) -> URL { FormCoding.url(base, adding: pairs) }

    /// Decodes `a=1&b=2` (with `+` as space) into a dictionary: later duplicates win, malformed escapes are kept as
    /// sent.
    package static func decode(_ text: String) -> [String: String] {
        FormCoding.decode(text, duplicates: .lastWins, malformed: .keepAsSent) ?? [:]
    }
}
