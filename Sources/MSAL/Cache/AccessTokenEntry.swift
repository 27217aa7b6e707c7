import Foundation

/// An `AccessToken` entry of the unified cache.
///
/// Known fields are typed; every other field read from the file is kept in ``extraFields`` and written back,
/// so data other SDKs store survives a rewrite. The scope set of ``target`` is computed once, when the
/// entry is made. `description` never shows the secret.
struct AccessTokenEntry: CacheEntry {
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
    /// Fields this type does not model, as read.
    let extraFields: [String: JSONValue]

    /// The scopes of ``target``, precomputed.
    let scopes: ScopeSet
    let homeKey: String
    /// ``environment``, lowercased.
    let environmentKey: String
    let clientKey: String
    let realmKey: String

    var cachedAt: Date? { cachedAtValue?.date }
    var expiresOn: Date { expiresOnValue.date }
    var extendedExpiresOn: Date? { extendedExpiresOnValue?.date }
    var refreshOn: Date? { refreshOnValue?.date }

    /// Whether this is a plain bearer token (`token_type` "Bearer" or absent), precomputed.
    let isBearer: Bool

    /// MSAL Python's key: `{home_account_id}-{environment}-accesstoken-{client_id}-{realm}-{target}`, lowercased.
    static func pythonKey(homeAccountId: String, environment: String, clientId: String, realm: String, target: String) -> String {
        CacheStrings.cacheKey(homeAccountId, environment, "accesstoken", clientId, realm, target)
    }

    /// A new entry with MSAL Python's key.
    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, target: String,
        secret: String, tokenType: String?, cachedAt: CacheTimestamp?, expiresOn: CacheTimestamp,
        extendedExpiresOn: CacheTimestamp?, refreshOn: CacheTimestamp?, scopes: ScopeSet? = nil,
        extraFields: [String: JSONValue] = [:], key: String? = nil, credentialType: String = "AccessToken"
    ) {
        self.key = key ?? Self.pythonKey(
            homeAccountId: homeAccountId, environment: environment, clientId: clientId, realm: realm, target: target)
        self.credentialType = credentialType
        self.secret = secret
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.clientId = clientId
        self.target = target
        self.realm = realm
        self.tokenType = tokenType
        self.cachedAtValue = cachedAt
        self.expiresOnValue = expiresOn
        self.extendedExpiresOnValue = extendedExpiresOn
        self.refreshOnValue = refreshOn
        self.extraFields = extraFields
        self.scopes = scopes ?? ScopeSet(target: target)
        self.homeKey = CacheStrings.lower(homeAccountId)
        self.environmentKey = CacheStrings.lower(environment)
        self.clientKey = CacheStrings.lower(clientId)
        self.realmKey = CacheStrings.lower(realm)
        self.isBearer = tokenType.map { CacheStrings.equalsLowercased($0, "bearer") } ?? true
    }

    /// Reads an entry stored under `key`; `scopeLookup` may return a shared scope set for a target string.
    init(key: String, fields: RawEntryFields, scopeLookup: (String) -> ScopeSet) throws {
        guard let secret = fields.string(.secret), let home = fields.string(.homeAccountId),
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
            extraFields: fields.leftovers(usedMask: used), key: key, credentialType: credentialType ?? "AccessToken")
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
        Self.writeObject(to: &writer, indent: indent, fields: orderedFields, extra: extraFields)
    }

    var jsonObject: [String: JSONValue] { Self.object(fields: orderedFields, extra: extraFields) }

    var description: String {
        "AccessTokenEntry(home_account_id: \(homeAccountId), environment: \(environment), client_id: \(clientId), "
            + "realm: \(realm), target: \(target), expires_on: \(expiresOnValue.text), secret: <redacted>)"
    }
}
