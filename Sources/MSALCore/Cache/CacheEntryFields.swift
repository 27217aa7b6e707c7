import Foundation

/// The JSON field names of cache entries that MSAL reads or writes.
enum CacheField: Int, CaseIterable, Sendable {
    case credentialType, secret, homeAccountId, environment, clientId, target, realm, tokenType
    case cachedAt, expiresOn, extendedExpiresOn, refreshOn, familyId, lastModificationTime
    case localAccountId, username, authorityType, name, clientInfo, accountSource

    /// The bit of this field in an entry's presence mask.
    var bit: UInt32 { 1 << UInt32(rawValue) }

    static let names: [String] = [
        "credential_type", "secret", "home_account_id", "environment", "client_id", "target", "realm",
        "token_type", "cached_at", "expires_on", "extended_expires_on", "refresh_on", "family_id",
        "last_modification_time", "local_account_id", "username", "authority_type", "name", "client_info",
        "account_source",
    ]

    private static let utf8Names: [[UInt8]] = names.map { Array($0.utf8) }

    /// Fields whose values repeat from entry to entry (same account, app, tenant, cloud), so the reader
    /// reuses the previous entry's string instead of making a new one.
    var repeatsAcrossEntries: Bool {
        switch self {
        case .credentialType, .homeAccountId, .environment, .clientId, .realm, .tokenType, .familyId, .authorityType,
             .accountSource:
            return true
        default:
            return false
        }
    }

    /// The field whose name is exactly `bytes` (UTF-8), if MSAL knows it.
    @inline(__always)
    static func match(_ bytes: UnsafeBufferPointer<UInt8>) -> CacheField? {
        guard let base = bytes.baseAddress else { return nil }
        let candidate: CacheField
        switch (bytes.count, base[0]) {
        case (4, _): candidate = .name
        case (5, _): candidate = .realm
        case (6, UInt8(ascii: "s")): candidate = .secret
        case (6, _): candidate = .target
        case (8, _): candidate = .username
        case (9, UInt8(ascii: "c")): candidate = base[1] == UInt8(ascii: "l") ? .clientId : .cachedAt
        case (9, _): candidate = .familyId
        case (10, UInt8(ascii: "t")): candidate = .tokenType
        case (10, UInt8(ascii: "e")): candidate = .expiresOn
        case (10, _): candidate = .refreshOn
        case (11, UInt8(ascii: "e")): candidate = .environment
        case (11, _): candidate = .clientInfo
        case (14, UInt8(ascii: "a")): candidate = base[1] == UInt8(ascii: "u") ? .authorityType : .accountSource
        case (15, UInt8(ascii: "c")): candidate = .credentialType
        case (15, _): candidate = .homeAccountId
        case (16, _): candidate = .localAccountId
        case (19, _): candidate = .extendedExpiresOn
        case (22, _): candidate = .lastModificationTime
        default: return nil
        }
        let same = utf8Names[candidate.rawValue].withUnsafeBufferPointer { name in
            name.count == bytes.count && memcmp(name.baseAddress!, base, bytes.count) == 0
        }
        return same ? candidate : nil
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

    /// Empties the fields for the next entry, keeping the storage.
    mutating func reset() {
        var rest = presentMask
        while rest != 0 {
            known[rest.trailingZeroBitCount] = nil
            rest &= rest - 1
        }
        presentMask = 0
        if !extra.isEmpty { extra.removeAll() }
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
