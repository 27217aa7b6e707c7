import Foundation

/// Small helpers to write JSON values as text.
enum JSONText {
    /// Serializes `value` compactly with sorted keys, or nil if it cannot be represented.
    static func serialize(_ value: JSONValue) -> String? {
        let foundation = value.foundationValue
        guard JSONSerialization.isValidJSONObject(foundation),
              let data = try? JSONSerialization.data(withJSONObject: foundation, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            if case .string(let s) = value { return "\"\(s)\"" }
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }
}
