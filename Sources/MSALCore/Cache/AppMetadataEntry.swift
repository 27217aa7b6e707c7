import Foundation

/// An `AppMetadata` entry of the unified cache: whether a client belongs to a family (FOCI).
struct AppMetadataEntry: CacheEntry {
    let key: String
    let clientId: String
    let environment: String
    let familyId: String?
    let extraFields: [String: JSONValue]

    let environmentKey: String
    let clientKey: String
    var homeKey: String { "" }

    /// MSAL Python's key, **not** lowercased: `appmetadata-{environment}-{client_id}`.
    static func pythonKey(environment: String, clientId: String) -> String {
        "appmetadata-\(environment)-\(clientId)"
    }

    init(clientId: String, environment: String, familyId: String?, extraFields: [String: JSONValue] = [:], key: String? = nil) {
        self.key = key ?? Self.pythonKey(environment: environment, clientId: clientId)
        self.clientId = clientId
        self.environment = environment
        self.familyId = familyId
        self.extraFields = extraFields
        self.environmentKey = CacheStrings.lower(environment)
        self.clientKey = CacheStrings.lower(clientId)
    }

    init(key: String, fields: RawEntryFields) throws {
        guard let clientId = fields.string(.clientId), let environment = fields.string(.environment) else {
            throw CacheEntryError(reason: "app metadata lacks a required string field")
        }
        var used: UInt32 = CacheField.clientId.bit | CacheField.environment.bit
        let familyId = fields.string(.familyId)
        if familyId != nil { used |= CacheField.familyId.bit }
        self.init(clientId: clientId, environment: environment, familyId: familyId,
                  extraFields: fields.leftovers(usedMask: used), key: key)
    }

    private var orderedFields: [(String, String?)] {
        [("client_id", clientId), ("environment", environment), ("family_id", familyId)]
    }

    func write(to writer: inout CacheJSONWriter, indent: Int) {
        writer.beginObject()
        let level = indent + 1
        writer.field("client_id", clientId, indent: level)
        writer.field("environment", environment, indent: level)
        writer.field("family_id", familyId, indent: level)
        writer.extraFields(extraFields, indent: level)
        writer.endObject(indent: indent)
    }

    var jsonObject: [String: JSONValue] { Self.object(fields: orderedFields, extra: extraFields) }

    var description: String {
        "AppMetadataEntry(client_id: \(clientId), environment: \(environment), family_id: \(familyId ?? "none"))"
    }
}
