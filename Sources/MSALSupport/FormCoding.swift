package import Foundation

/// `application/x-www-form-urlencoded` and URL query coding, for the client, the loopback listener and the emulator.
///
/// Decoding splits on `&` (empty pieces are ignored), then each piece at its first `=`; `+` reads as a space and
/// `%XX` escapes are decoded as UTF-8. What happens to a repeated name and to a malformed piece is each caller's
/// explicit choice: ``DuplicateKeys`` and ``MalformedInput``.
package enum FormCoding {
    /// What a name that occurs more than once means.
    package enum DuplicateKeys: Sendable {
        /// The first occurrence counts; later ones are ignored.
        case firstWins
        /// The last occurrence counts.
        case lastWins
        /// The whole input is refused.
        case reject
    }

    /// What a piece with a malformed escape (or an empty name) means.
    package enum MalformedInput: Sendable {
        /// A name or value whose escapes do not decode is kept as sent; an empty name is a name like any other.
        case keepAsSent
        /// A piece whose name is empty or does not decode is dropped; a value that does not decode reads as empty.
        case skip
        /// The whole input is refused.
        case reject
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Percent-encodes everything but the unreserved characters (RFC 3986 §2.3).
    package static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// Encodes ordered pairs as `a=1&b=2`.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Appends ordered pairs to `url`'s query.
    package static func url(_ base: URL, adding pairs: [(String, String)]) -> URL {
        guard !pairs.isEmpty, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + encode(pairs)
        return components.url ?? base
    }

    /// The decoded pairs in order, duplicates included; nil when `malformed` is `.reject` and a piece is malformed.
    /// Only the first `limit` pieces are read.
    package static func pairs(_ text: some StringProtocol, malformed: MalformedInput,
                              limit: Int = .max) -> [(name: String, value: String)]? {
        var result: [(name: String, value: String)] = []
        for piece in Substring(text).split(separator: "&").prefix(limit) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = parts[0]
            let rawValue = parts.count > 1 ? parts[1] : rawName[rawName.endIndex...]
            let name = unescape(rawName)
            let value = unescape(rawValue)
            switch malformed {
            case .keepAsSent:
                result.append((name ?? String(rawName), value ?? String(rawValue)))
            case .skip:
                guard let name, !name.isEmpty else { continue }
                result.append((name, value ?? ""))
            case .reject:
                guard let name, !name.isEmpty, let value else { return nil }
                result.append((name, value))
            }
        }
        return result
    }

    /// The pairs as a dictionary under the `duplicates` rule; nil when it is `.reject` and a name repeats.
    package static func dictionary(_ pairs: [(name: String, value: String)],
                                   duplicates: DuplicateKeys) -> [String: String]? {
        var result: [String: String] = [:]
        for (name, value) in pairs {
            switch duplicates {
            case .firstWins:
                if result[name] == nil { result[name] = value }
            case .lastWins:
                result[name] = value
            case .reject:
                guard result[name] == nil else { return nil }
                result[name] = value
            }
        }
        return result
    }

    /// Decodes `a=1&b=2` into a dictionary under the given rules; nil when a `.reject` rule refuses the input.
    package static func decode(_ text: some StringProtocol, duplicates: DuplicateKeys, malformed: MalformedInput,
                               limit: Int = .max) -> [String: String]? {
        pairs(text, malformed: malformed, limit: limit).flatMap { dictionary($0, duplicates: duplicates) }
    }

    /// `+` as a space, then percent-decoding; nil when an escape is malformed or not UTF-8.
    private static func unescape(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
