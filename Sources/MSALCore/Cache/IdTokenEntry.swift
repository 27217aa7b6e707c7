import Foundation

/// An `IdToken` entry of the unified cache: the raw ID token (JWT) of an account in one tenant.
///
/// Unknown fields are kept in ``extraFields``. `description` never shows the token.
final class IdTokenEntry: CacheEntry {
    let key: String
    let credentialType: String
    let secret: String
    let homeAccountId: String
    let environment: String
    let realm: String
    let clientId: String
    let extraFields: [String: JSONValue]

    let homeKey: String
    let environmentKey: String
    let clientKey: String
    let realmKey: String

    /// MSAL Python's key: `{home_account_id}-{environment}-idtoken-{client_id}-{realm}-`, lowercased.
    static func pythonKey(homeAccountId: String, environment: String, clientId: String, realm: String) -> String {
        CacheStrings.cacheKey(homeAccountId, environment, "idtoken", clientId, realm, "")
    }

    init(
        homeAccountId: String, environment: String, realm: String, clientId: String, secret: String,
        extraFields: [String: JSONValue] = [:], key: String? = nil, credentialType: String = "IdToken"
    ) {
        self.key = key ?? Self.pythonKey(homeAccountId: homeAccountId, environment: environment, clientId: clientId, realm: realm)
        self.credentialType = credentialType
        self.secret = secret
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.realm = realm
        self.clientId = clientId
        self.extraFields = extraFields
        self.homeKey = CacheStrings.lower(homeAccountId)
        self.environmentKey = CacheStrings.lower(environment)
        self.clientKey = CacheStrings.lower(clientId)
        self.realmKey = CacheStrings.lower(realm)
    }

    convenience init(key: String, fields: RawEntryFields) throws {
        guard let secret = fields.string(.secret), let home = fields.string(.homeAccountId),
              let environment = fields.string(.environment), let realm = fields.string(.realm),
              let clientId = fields.string(.clientId)
        else { throw CacheEntryError(reason: "an ID token lacks a required string field") }
        var used: UInt32 = CacheField.secret.bit | CacheField.homeAccountId.bit | CacheField.environment.bit
            | CacheField.realm.bit | CacheField.clientId.bit
        let credentialType = fields.string(.credentialType)
        if credentialType != nil { used |= CacheField.credentialType.bit }
        self.init(
            homeAccountId: home, environment: environment, realm: realm, clientId: clientId, secret: secret,
            extraFields: fields.leftovers(usedMask: used), key: key, credentialType: credentialType ?? "IdToken")
    }

    private var orderedFields: [(String, String?)] {
        [
            ("credential_type", credentialType), ("secret", secret), ("home_account_id", homeAccountId),
            ("environment", environment), ("realm", realm), ("client_id", clientId),
        ]
    }

    func write(to writer: inout CacheJSONWriter, indent: Int) {
        writer.beginObject()
        let level = indent + 1
        writer.field("credential_type", credentialType, indent: level)
        writer.field("secret", secret, indent: level)
        writer.field("home_account_id", homeAccountId, indent: level)
        writer.field("environment", environment, indent: level)
        writer.field("realm", realm, indent: level)
        writer.field("client_id", clientId, indent: level)
        writer.extraFields(extraFields, indent: level)
        writer.endObject(indent: indent)
    }

    var jsonObject: [String: JSONValue] { Self.object(fields: orderedFields, extra: extraFields) }

    var description: String {
        "IdTokenEntry(home_account_id: \(homeAccountId), environment: \(environment), realm: \(realm), "
            + "client_id: \(clientId), secret: <redacted>)"
    }
}
