import Foundation
import MSALSupport
import NIOCore

/// How the listener reads a redirect's query or `form_post` body: strictly, since the parameters carry the
/// authorization code and its `state`.
enum FormDecoding {
    /// The decoded pairs, or nil when a name repeats, a name is empty or an escape is malformed.
    static func parse(_ encoded: Substring) -> [String: String]? {
        FormCoding.decode(encoded, duplicates: .reject, malformed: .reject)
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
