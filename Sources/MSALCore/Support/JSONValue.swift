public import Foundation

/// A JSON value, kept as parsed so that fields MSAL does not know survive a rewrite.
///
/// Numbers are ``number(_:)``, except where the token cache reader meets a number whose text a `Double`
/// would not reproduce (an integer beyond ±2⁵³, `-0`, `1.0`, `1e3`): it keeps the exact text as
/// ``numberText(_:)``, so that rewriting the cache leaves other SDKs' fields unchanged byte for byte.
public enum JSONValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    /// A number kept as its exact JSON text (valid JSON number syntax), as read from a token cache.
    case numberText(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The number, if this is a number (or a string that holds one).
    public var doubleValue: Double? {
        switch self {
        case .number(let n): return n
        case .numberText(let text): return Double(text)
        case .string(let s): return Double(s)
        default: return nil
        }
    }
    /// The object, if this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    /// The array, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// Converts a value produced by `JSONSerialization` into a `JSONValue`.
    public init?(foundation value: Any) {
        switch value {
        case let s as String: self = .string(s)
        case let n as NSNumber:
            // A boolean from JSONSerialization is an instance of the class of NSNumber(value: true) (CFBoolean on
            // Apple platforms), which no number shares.
            if type(of: n) == type(of: NSNumber(value: true)) && (n == NSNumber(value: true) || n == NSNumber(value: false)) {
                self = .bool(n.boolValue); return
            }
            self = .number(n.doubleValue)
        case let b as Bool: self = .bool(b)
        case is NSNull: self = .null
        case let a as [Any]:
            var out: [JSONValue] = []
            out.reserveCapacity(a.count)
            for item in a { guard let v = JSONValue(foundation: item) else { return nil }; out.append(v) }
            self = .array(out)
        case let o as [String: Any]:
            var out: [String: JSONValue] = [:]
            for (k, item) in o { guard let v = JSONValue(foundation: item) else { return nil }; out[k] = v }
            self = .object(out)
        default: return nil
        }
    }

    /// The value as `JSONSerialization` would produce it (`String`, `NSNumber`, `Bool`, `NSNull`, arrays, dictionaries).
    public var foundationValue: Any {
        switch self {
        case .string(let s): return s
        case .number(let n): return n.rounded() == n && abs(n) < 1e15 ? Int(n) as Any : n as Any
        case .numberText(let text):
            if let whole = Int64(text) { return NSNumber(value: whole) }
            return Decimal(string: text).map { NSDecimalNumber(decimal: $0) as Any } ?? (Double(text) ?? 0) as Any
        case .bool(let b): return b
        case .null: return NSNull()
        case .array(let a): return a.map(\.foundationValue)
        case .object(let o): return o.mapValues(\.foundationValue)
        }
    }

    /// Parses JSON text whose top level is an object.
    public static func parseObject(_ data: Data) -> [String: JSONValue]? {
        guard let any = try? JSONSerialization.jsonObject(with: data, options: []),
              case .object(let object)? = JSONValue(foundation: any) else { return nil }
        return object
    }
}
