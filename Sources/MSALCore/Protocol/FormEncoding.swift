import Foundation

/// `application/x-www-form-urlencoded` and URL query encoding.
enum FormEncoding {
    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Percent-encodes everything but the unreserved characters (RFC 3986 §2.3).
    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// Encodes ordered pairs as `a=1&b=2`.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Appends ordered pairs to `url`'s query.
    static func url(_ base: URL, adding pairs: [(String, String)]) -> URL {
        guard !pairs.isEmpty, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + encode(pairs)
        return components.url ?? base
    }

    /// Decodes `a=1&b=2` (with `+` as space) into a dictionary; later duplicates win.
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            guard let name = parts.first else { continue }
            result[unescape(name)] = parts.count > 1 ? unescape(parts[1]) : ""
        }
        return result
    }
}
