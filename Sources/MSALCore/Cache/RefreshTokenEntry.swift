import Foundation

/// A `RefreshToken` entry of the unified cache (a family refresh token when ``familyId`` is set).
///
/// Unknown fields are kept in ``extraFields``. `description` never shows the secret.
struct RefreshTokenEntry: CacheEntry {
    /// The fields, in one reference: copying an entry (into indexes, results, sorts) is a single retain.
    private final class Storage: Sendable {
        let key: String
        let credentialType: String
        let secret: String
        let homeAccountId: String
        let environment: String
        let clientId: String
        let target: String?
        let lastModificationTimeValue: CacheTimestamp?
        let familyId: String?
        let extraFields: [String: JSONValue]
        let homeKey: String
        let environmentKey: String
        let clientKey: String

        init(
            key: String, credentialType: String, secret: String, homeAccountId: String, environment: String,
            clientId: String, target: String?, lastModificationTimeValue: CacheTimestamp?, familyId: String?,
            extraFields: [String: JSONValue]
        ) {
            self.key = key
            self.credentialType = credentialType
            self.secret = secret
            self.homeAccountId = homeAccountId
            self.environment = environment
            self.clientId = clientId
            self.target = target
            self.lastModificationTimeValue = lastModificationTimeValue
            self.familyId = familyId
            self.extraFields = extraFields
            self.homeKey = CacheStrings.lower(homeAccountId)
            self.environmentKey = CacheStrings.lower(environment)
            self.clientKey = CacheStrings.lower(clientId)
        }
    }

    private let storage: Storage

    var key: String { storage.key }
    var credentialType: String { storage.credentialType }
    var secret: String { storage.secret }
    var homeAccountId: String { storage.homeAccountId }
    var environment: String { storage.environment }
    var clientId: String { storage.clientId }
    var target: String? { storage.target }
    var lastModificationTimeValue: CacheTimestamp? { storage.lastModificationTimeValue }
    var familyId: String? { storage.familyId }
    /// Fields this type does not model, as read.
    var extraFields: [String: JSONValue] { storage.extraFields }

    var homeKey: String { storage.homeKey }
    var environmentKey: String { storage.environmentKey }
    var clientKey: String { storage.clientKey }

    var lastModificationTime: Date? { lastModificationTimeValue?.date }

    /// MSAL Python's key: `{home_account_id}-{environment}-refreshtoken-{client_id}--{target}`, lowercased.
    static func pythonKey(homeAccountId: String, environment: String, clientId: String, target: String?) -> String {
        CacheStrings.cacheKey(homeAccountId, environment, "refreshtoken", clientId, "", target ?? "")
    }

    init(
        homeAccountId: String, environment: String, clientId: String, target: String?, secret: String,
        lastModificationTime: CacheTimestamp?, familyId: String?, extraFields: [String: JSONValue] = [:],
        key: String? = nil, credentialType: String = "RefreshToken"
    ) {
        storage = Storage(
            key: key ?? Self.pythonKey(homeAccountId: homeAccountId, environment: environment, clientId: clientId, target: target),
            credentialType: credentialType, secret: secret, homeAccountId: homeAccountId, environment: environment,
            clientId: clientId, target: target, lastModificationTimeValue: lastModificationTime, familyId: familyId,
            extraFields: extraFields)
    }

    init(key: String, fields: RawEntryFields) throws {
        guard let secret = fields.string(.secret), let home = fields.string(.homeAccountId),
              let environment = fields.string(.environment), let clientId = fields.string(.clientId)
        else { throw CacheEntryError(reason: "a refresh token lacks a required string field") }
        var used: UInt32 = CacheField.secret.bit | CacheField.homeAccountId.bit | CacheField.environment.bit
            | CacheField.clientId.bit
        let credentialType = fields.string(.credentialType)
        if credentialType != nil { used |= CacheField.credentialType.bit }
        let target = fields.string(.target)
        if target != nil { used |= CacheField.target.bit }
        let modified = fields.timestamp(.lastModificationTime)
        if modified != nil { used |= CacheField.lastModificationTime.bit }
        let familyId = fields.string(.familyId)
        if familyId != nil { used |= CacheField.familyId.bit }
        self.init(
            homeAccountId: home, environment: environment, clientId: clientId, target: target, secret: secret,
            lastModificationTime: modified, familyId: familyId, extraFields: fields.leftovers(usedMask: used),
            key: key, credentialType: credentialType ?? "RefreshToken")
    }

    /// This token after rotation: a new secret and modification time; key and other fields unchanged.
    func rotated(secret newSecret: String, at time: CacheTimestamp) -> RefreshTokenEntry {
        RefreshTokenEntry(
            homeAccountId: homeAccountId, environment: environment, clientId: clientId, target: target,
            secret: newSecret, lastModificationTime: time, familyId: familyId, extraFields: extraFields, key: key,
            credentialType: credentialType)
    }

    private var orderedFields: [(String, String?)] {
        [
            ("credential_type", credentialType), ("secret", secret), ("home_account_id", homeAccountId),
            ("environment", environment), ("client_id", clientId), ("target", target),
            ("last_modification_time", lastModificationTimeValue?.text), ("family_id", familyId),
        ]
    }

    func write(to writer: inout CacheJSONWriter, indent: Int) {
        writer.beginObject()
        let level = indent + 1
        writer.field("credential_type", credentialType, indent: level)
        writer.field("secret", secret, indent: level)
        writer.field("home_account_id", homeAccountId, indent: level)
        writer.field("environment", environment, indent: level)
        writer.field("client_id", clientId, indent: level)
        writer.field("target", target, indent: level)
        writer.field("last_modification_time", lastModificationTimeValue?.text, indent: level)
        writer.field("family_id", familyId, indent: level)
        writer.extraFields(extraFields, indent: level)
        writer.endObject(indent: indent)
    }

    var jsonObject: [String: JSONValue] { Self.object(fields: orderedFields, extra: extraFields) }

    var description: String {
        "RefreshTokenEntry(home_account_id: \(homeAccountId), environment: \(environment), client_id: \(clientId), "
            + "family_id: \(familyId ?? "none"), secret: <redacted>)"
    }
}
