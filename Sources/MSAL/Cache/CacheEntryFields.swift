import Foundation

/// The JSON field names of cache entries that MSAL reads or writes.
enum CacheField: Int, CaseIterable, Sendable {
    case credentialType, secret, homeAccountId, environment, clientId, target, realm, tokenType
    case cachedAt, expiresOn, extendedExpiresOn, refreshOn, familyId, lastModificationTime
    case localAccountId, username, authorityType, name, clientInfo, accountSource

    /// The field name as written in the JSON document.
    var jsonName: String { Self.names[rawValue] }

    /// The bit of this field in an entry's presence mask.
    var bit: UInt32 { 1 << UInt32(rawValue) }

    static let names: [String] = [
        "credential_type", "secret", "home_account_id", "environment", "client_id", "target", "realm",
        "token_type", "cached_at", "expires_on", "extended_expires_on", "refresh_on", "family_id",
        "last_modification_time", "local_account_id", "username", "authority_type", "name", "client_info",
        "account_source",
    ]

    private static let utf8Names: [[UInt8]] = names.map { Array($0.utf8) }

    /// The field whose name is exactly `bytes` (UTF-8), if MSAL knows it.
    @inline(__always)
    static func match(_ bytes: UnsafeBufferPointer<UInt8>) -> CacheField? {
        let count = bytes.count
        guard count >= 4, count <= 22, let base = bytes.baseAddress else { return nil }
        for index in 0..<utf8Names.count {
            let candidate = utf8Names[index]
            guard candidate.count == count, candidate[0] == base[0], candidate[count - 1] == base[count - 1] else {
                continue
            }
            let same = candidate.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, count) == 0 }
            if same { return CacheField(rawValue: index) }
        }
        return nil
    }

    /// The field whose name is `name`, if MSAL knows it.
    static func match(_ name: String) -> CacheField? {
        guard let index = names.firstIndex(of: name) else { return nil }
        return CacheField(rawValue: index)
    }
}

/// The fields of one cache entry as read from JSON, before a typed entry takes the ones it knows.
struct RawEntryFields {
    private(set) var known: ContiguousArray<JSONValue?> = ContiguousArray(repeating: nil, count: CacheField.allCases.count)
    private(set) var presentMask: UInt32 = 0
    /// Fields MSAL does not know, exactly as read.
    var extra: [String: JSONValue] = [:]

    init() {}

    /// Builds the fields from a complete JSON object.
    init(object: [String: JSONValue]) {
        for (name, value) in object { set(name: name, value) }
    }

    mutating func set(_ field: CacheField, _ value: JSONValue) {
        known[field.rawValue] = value
        presentMask |= field.bit
    }

    mutating func set(name: String, _ value: JSONValue) {
        if let field = CacheField.match(name) { set(field, value) } else { extra[name] = value }
    }

    subscript(field: CacheField) -> JSONValue? { known[field.rawValue] }

    /// The string value of `field`, if it is present and a string.
    func string(_ field: CacheField) -> String? {
        if case .string(let s)? = known[field.rawValue] { return s }
        return nil
    }

    /// The timestamp value of `field`, if present and readable.
    func timestamp(_ field: CacheField) -> CacheTimestamp? {
        known[field.rawValue].flatMap(CacheTimestamp.init(json:))
    }

    /// The unknown fields plus every known field not in `usedMask`, so nothing is lost on a rewrite.
    func leftovers(usedMask: UInt32) -> [String: JSONValue] {
        var result = extra
        var rest = presentMask & ~usedMask
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if let value = known[index] { result[CacheField.names[index]] = value }
        }
        return result
    }
}

/// Why an entry could not be read.
struct CacheEntryError: Error, Sendable {
    let reason: String
}

/// What every typed cache entry offers to the document that indexes it.
protocol CacheEntry: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The entry's key in its section.
    var key: String { get }
    /// `home_account_id`, lowercased, for the per-account index.
    var homeKey: String { get }
    /// Writes the entry's JSON object (fields in MSAL Python's order, then unknown fields by name).
    func write(to writer: inout CacheJSONWriter, indent: Int)
    /// The complete JSON object of the entry, unknown fields included.
    var jsonObject: [String: JSONValue] { get }
}

extension CacheEntry {
    /// Writes known fields in order, then the extra fields sorted by name.
    static func writeObject(
        to writer: inout CacheJSONWriter, indent: Int, fields: [(String, String?)], extra: [String: JSONValue]
    ) {
        writer.beginObject()
        for (name, value) in fields {
            guard let value else { continue }
            writer.key(name, indent: indent + 1)
            writer.string(value)
        }
        if !extra.isEmpty {
            for name in extra.keys.sorted(by: CacheStrings.codePointLess) {
                writer.key(name, indent: indent + 1)
                writer.value(extra[name]!, indent: indent + 1)
            }
        }
        writer.endObject(indent: indent)
    }

    /// The complete JSON object from known fields and the extra fields.
    static func object(fields: [(String, String?)], extra: [String: JSONValue]) -> [String: JSONValue] {
        var object = extra
        for (name, value) in fields { if let value { object[name] = .string(value) } }
        return object
    }
}

extension CacheEntry {
    /// Reflection (`dump`) shows only the redacted description, never the secret.
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension CacheEntry {
    var debugDescription: String { description }
}
