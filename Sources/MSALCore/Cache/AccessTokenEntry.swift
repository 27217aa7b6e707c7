import Foundation

/// An `AccessToken` entry of the unified cache.
///
/// Known fields are typed; every other field read from the file is kept in ``extraFields`` and written back,
/// so data other SDKs store survives a rewrite. The scope set of ``target`` is computed once, when the
/// entry is made. `description` never shows the secret.
struct AccessTokenEntry: CacheEntry {
    /// The fields, in one reference: copying an entry (into indexes, results, sorts) is a single retain.
    private final class Storage: Sendable {
        let key: String
        let credentialType: String
        let secret: String
        let homeAccountId: String
        let environment: String
        let clientId: String
        let target: String
        let realm: String
        let tokenType: String?
        let cachedAtValue: CacheTimestamp?
        let expiresOnValue: CacheTimestamp
        let extendedExpiresOnValue: CacheTimestamp?
        let refreshOnValue: CacheTimestamp?
        let extraFields: [String: JSONValue]
        let scopes: ScopeSet
        let homeKey: String
        let environmentKey: String
        let clientKey: String
        let realmKey: String
        let isBearer: Bool
        let homeIsNull: Bool

        init(
            key: String, credentialType: String, secret: String, homeAccountId: String, environment: String,
            clientId: String, target: String, realm: String, tokenType: String?, cachedAtValue: CacheTimestamp?,
            expiresOnValue: CacheTimestamp, extendedExpiresOnValue: CacheTimestamp?, refreshOnValue: CacheTimestamp?,
            extraFields: [String: JSONValue], scopes: ScopeSet, homeKey: String, environmentKey: String,
            clientKey: String, realmKey: String, isBearer: Bool, homeIsNull: Bool
        ) {
            self.key = key
            self.credentialType = credentialType
            self.secret = secret
            self.homeAccountId = homeAccountId
            self.environment = environment
            self.clientId = clientId
            self.target = target
            self.realm = realm
            self.tokenType = tokenType
            self.cachedAtValue = cachedAtValue
            self.expiresOnValue = expiresOnValue
            self.extendedExpiresOnValue = extendedExpiresOnValue
            self.refreshOnValue = refreshOnValue
            self.extraFields = extraFields
            self.scopes = scopes
            self.homeKey = homeKey
            self.environmentKey = environmentKey
            self.clientKey = clientKey
            self.realmKey = realmKey
            self.isBearer = isBearer
            self.homeIsNull = homeIsNull
        }
    }

    private let storage: Storage

    var key: String { storage.key }
    var credentialType: String { storage.credentialType }
    var secret: String { storage.secret }
    var homeAccountId: String { storage.homeAccountId }
    var environment: String { storage.environment }
    var clientId: String { storage.clientId }
    var target: String { storage.target }
    var realm: String { storage.realm }
    var tokenType: String? { storage.tokenType }
    var cachedAtValue: CacheTimestamp? { storage.cachedAtValue }
    var expiresOnValue: CacheTimestamp { storage.expiresOnValue }
    var extendedExpiresOnValue: CacheTimestamp? { storage.extendedExpiresOnValue }
    var refreshOnValue: CacheTimestamp? { storage.refreshOnValue }
    /// Fields this type does not model, as read.
    var extraFields: [String: JSONValue] { storage.extraFields }

    /// The scopes of ``target``, precomputed.
    var scopes: ScopeSet { storage.scopes }
    var homeKey: String { storage.homeKey }
    /// ``environment``, lowercased.
    var environmentKey: String { storage.environmentKey }
    var clientKey: String { storage.clientKey }
    var realmKey: String { storage.realmKey }

    var cachedAt: Date? { cachedAtValue?.date }
    var expiresOn: Date { expiresOnValue.date }
    var extendedExpiresOn: Date? { extendedExpiresOnValue?.date }
    var refreshOn: Date? { refreshOnValue?.date }

    /// Whether `home_account_id` is JSON null: an app token (client credentials, managed identity) as MSAL for
    /// Python writes it. ``homeAccountId`` is then "".
    var homeAccountIdIsNull: Bool { storage.homeIsNull }

    /// Whether this is a plain bearer token (`token_type` "Bearer" or absent), precomputed.
    var isBearer: Bool { storage.isBearer }

    /// MSAL Python's key: `{home_account_id}-{environment}-accesstoken-{client_id}-{realm}-{target}`, lowercased.
    static func pythonKey(homeAccountId: String, environment: String, clientId: String, realm: String, target: String) -> String {
        CacheStrings.cacheKey(homeAccountId, environment, "accesstoken", clientId, realm, target)
    }

    /// A new entry with MSAL Python's key.
    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, target: String,
        secret: String, tokenType: String?, cachedAt: CacheTimestamp?, expiresOn: CacheTimestamp,
        extendedExpiresOn: CacheTimestamp?, refreshOn: CacheTimestamp?, scopes: ScopeSet? = nil,
        extraFields: [String: JSONValue] = [:], key: String? = nil, credentialType: String = "AccessToken",
        homeAccountIdIsNull: Bool = false
    ) {
        storage = Storage(
            key: key ?? Self.pythonKey(
                homeAccountId: homeAccountId, environment: environment, clientId: clientId, realm: realm, target: target),
            credentialType: credentialType, secret: secret, homeAccountId: homeAccountId, environment: environment,
            clientId: clientId, target: target, realm: realm, tokenType: tokenType, cachedAtValue: cachedAt,
            expiresOnValue: expiresOn, extendedExpiresOnValue: extendedExpiresOn, refreshOnValue: refreshOn,
            extraFields: extraFields, scopes: scopes ?? ScopeSet(target: target),
            homeKey: CacheStrings.lower(homeAccountId), environmentKey: CacheStrings.lower(environment),
            clientKey: CacheStrings.lower(clientId), realmKey: CacheStrings.lower(realm),
            isBearer: tokenType.map { CacheStrings.equalsLowercased($0, "bearer") } ?? true,
            homeIsNull: homeAccountIdIsNull)
    }

    /// Reads an entry stored under `key`; `scopeLookup` may return a shared scope set for a target string.
    init(key: String, fields: RawEntryFields, scopeLookup: (String) -> ScopeSet) throws {
        // An app token's home_account_id is JSON null (MSAL for Python) or "" (other SDKs).
        let homeIsNull = fields[.homeAccountId] == .null
        guard let secret = fields.string(.secret), let home = homeIsNull ? "" : fields.string(.homeAccountId),
              let environment = fields.string(.environment), let clientId = fields.string(.clientId),
              let realm = fields.string(.realm), let target = fields.string(.target)
        else { throw CacheEntryError(reason: "an access token lacks a required string field") }
        guard let expiresOn = fields.timestamp(.expiresOn) else {
            throw CacheEntryError(reason: "an access token has no readable expires_on")
        }
        var used: UInt32 = CacheField.secret.bit | CacheField.homeAccountId.bit | CacheField.environment.bit
            | CacheField.clientId.bit | CacheField.realm.bit | CacheField.target.bit | CacheField.expiresOn.bit
        let credentialType = fields.string(.credentialType)
        if credentialType != nil { used |= CacheField.credentialType.bit }
        let tokenType = fields.string(.tokenType)
        if tokenType != nil { used |= CacheField.tokenType.bit }
        let cachedAt = fields.timestamp(.cachedAt)
        if cachedAt != nil { used |= CacheField.cachedAt.bit }
        let extended = fields.timestamp(.extendedExpiresOn)
        if extended != nil { used |= CacheField.extendedExpiresOn.bit }
        let refreshOn = fields.timestamp(.refreshOn)
        if refreshOn != nil { used |= CacheField.refreshOn.bit }
        self.init(
            homeAccountId: home, environment: environment, clientId: clientId, realm: realm, target: target,
            secret: secret, tokenType: tokenType, cachedAt: cachedAt, expiresOn: expiresOn,
            extendedExpiresOn: extended, refreshOn: refreshOn, scopes: scopeLookup(target),
            extraFields: fields.leftovers(usedMask: used), key: key, credentialType: credentialType ?? "AccessToken",
            homeAccountIdIsNull: homeIsNull)
    }

    private var orderedFields: [(String, String?)] {
        [
            ("credential_type", credentialType), ("secret", secret), ("home_account_id", homeAccountId),
            ("environment", environment), ("client_id", clientId), ("target", target), ("realm", realm),
            ("token_type", tokenType), ("cached_at", cachedAtValue?.text), ("expires_on", expiresOnValue.text),
            ("extended_expires_on", extendedExpiresOnValue?.text), ("refresh_on", refreshOnValue?.text),
        ]
    }

    func write(to writer: inout CacheJSONWriter, indent: Int) {
        writer.beginObject()
        let level = indent + 1
        writer.field("credential_type", credentialType, indent: level)
        writer.field("secret", secret, indent: level)
        if homeAccountIdIsNull {
            writer.key("home_account_id", indent: level)
            writer.value(.null, indent: level)
        } else {
            writer.field("home_account_id", homeAccountId, indent: level)
        }
        writer.field("environment", environment, indent: level)
        writer.field("client_id", clientId, indent: level)
        writer.field("target", target, indent: level)
        writer.field("realm", realm, indent: level)
        writer.field("token_type", tokenType, indent: level)
        writer.field("cached_at", cachedAtValue?.text, indent: level)
        writer.field("expires_on", expiresOnValue.text, indent: level)
        writer.field("extended_expires_on", extendedExpiresOnValue?.text, indent: level)
        writer.field("refresh_on", refreshOnValue?.text, indent: level)
        writer.extraFields(extraFields, indent: level)
        writer.endObject(indent: indent)
    }

    var jsonObject: [String: JSONValue] {
        var object = Self.object(fields: orderedFields, extra: extraFields)
        if homeAccountIdIsNull { object["home_account_id"] = .null }
        return object
    }

    var description: String {
        "AccessTokenEntry(home_account_id: \(homeAccountId), environment: \(environment), client_id: \(clientId), "
            + "realm: \(realm), target: \(target), expires_on: \(expiresOnValue.text), secret: <redacted>)"
    }
}
