import Foundation

/// An `Account` entry of the unified cache: one account in one tenant (realm) of one environment.
///
/// Unknown fields (other SDKs' `given_name`, `alternative_account_id`, …) are kept in ``extraFields``.
struct AccountEntry: CacheEntry {
    let key: String
    let homeAccountId: String
    let environment: String
    let realm: String
    let localAccountId: String
    let username: String
    let authorityType: String
    let name: String?
    let clientInfo: String?
    let accountSource: String?
    let extraFields: [String: JSONValue]

    let homeKey: String
    let environmentKey: String

    /// MSAL Python's key: `{home_account_id}-{environment}-{realm}`, lowercased.
    static func pythonKey(homeAccountId: String, environment: String, realm: String) -> String {
        CacheStrings.cacheKey(homeAccountId, environment, realm)
    }

    init(
        homeAccountId: String, environment: String, realm: String, localAccountId: String, username: String,
        authorityType: String, name: String? = nil, clientInfo: String? = nil, accountSource: String? = nil,
        extraFields: [String: JSONValue] = [:], key: String? = nil
    ) {
        self.key = key ?? Self.pythonKey(homeAccountId: homeAccountId, environment: environment, realm: realm)
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.realm = realm
        self.localAccountId = localAccountId
        self.username = username
        self.authorityType = authorityType
        self.name = name
        self.clientInfo = clientInfo
        self.accountSource = accountSource
        self.extraFields = extraFields
        self.homeKey = CacheStrings.lower(homeAccountId)
        self.environmentKey = CacheStrings.lower(environment)
    }

    /// Reads an entry. `home_account_id`, `environment`, `realm` and `authority_type` are required (MSAL
    /// Python fails on an account without `authority_type`); a missing `local_account_id` or `username`
    /// reads as "" and is not written back.
    init(key: String, fields: RawEntryFields) throws {
        guard let home = fields.string(.homeAccountId), let environment = fields.string(.environment),
              let realm = fields.string(.realm), let authorityType = fields.string(.authorityType)
        else { throw CacheEntryError(reason: "an account lacks a required string field") }
        var used: UInt32 = CacheField.homeAccountId.bit | CacheField.environment.bit | CacheField.realm.bit
            | CacheField.authorityType.bit
        func optional(_ field: CacheField) -> String? {
            guard let value = fields.string(field) else { return nil }
            used |= field.bit
            return value
        }
        let local = optional(.localAccountId)
        let username = optional(.username)
        let name = optional(.name)
        let clientInfo = optional(.clientInfo)
        let source = optional(.accountSource)
        self.init(
            homeAccountId: home, environment: environment, realm: realm, localAccountId: local ?? "",
            username: username ?? "", authorityType: authorityType, name: name, clientInfo: clientInfo,
            accountSource: source, extraFields: fields.leftovers(usedMask: used), key: key)
        // Absent local_account_id/username stay absent when written back.
        self.localAccountIdPresent = local != nil
        self.usernamePresent = username != nil
    }

    private var localAccountIdPresent = true
    private var usernamePresent = true

    private var orderedFields: [(String, String?)] {
        [
            ("home_account_id", homeAccountId), ("environment", environment), ("realm", realm),
            ("local_account_id", localAccountIdPresent ? localAccountId : nil),
            ("username", usernamePresent ? username : nil), ("authority_type", authorityType),
            ("name", name), ("client_info", clientInfo), ("account_source", accountSource),
        ]
    }

    func write(to writer: inout CacheJSONWriter, indent: Int) {
        writer.beginObject()
        let level = indent + 1
        writer.field("home_account_id", homeAccountId, indent: level)
        writer.field("environment", environment, indent: level)
        writer.field("realm", realm, indent: level)
        writer.field("local_account_id", localAccountIdPresent ? localAccountId : nil, indent: level)
        writer.field("username", usernamePresent ? username : nil, indent: level)
        writer.field("authority_type", authorityType, indent: level)
        writer.field("name", name, indent: level)
        writer.field("client_info", clientInfo, indent: level)
        writer.field("account_source", accountSource, indent: level)
        writer.extraFields(extraFields, indent: level)
        writer.endObject(indent: indent)
    }

    var jsonObject: [String: JSONValue] { Self.object(fields: orderedFields, extra: extraFields) }

    var description: String {
        "AccountEntry(home_account_id: \(homeAccountId), environment: \(environment), realm: \(realm), "
            + "authority_type: \(authorityType))"
    }
}
