import Foundation
import NIOCore

/// `application/x-www-form-urlencoded` decoding (also used for the query of a redirect).
enum FormDecoding {
    /// The decoded pairs, or nil when a name repeats or an escape is malformed.
    static func parse(_ encoded: Substring) -> [String: String]? {
        var result: [String: String] = [:]
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(nameValue[0]), !name.isEmpty else { return nil }
            guard let value = nameValue.count > 1 ? decode(nameValue[1]) : "" else { return nil }
            guard result[name] == nil else { return nil }
            result[name] = value
        }
        return result
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

extension Duration {
    /// The duration as a NIO time amount (nanoseconds, clamped).
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let limit = Int64.max / 1_000_000_000 - 1
        guard seconds < limit else { return .nanoseconds(Int64.max) }
        guard seconds >= 0 else { return .zero }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
