package import Foundation

/// One keychain item as MSAL for iOS/macOS stores a cache entry: the four attributes that name it, and the entry's
/// JSON as the value. The access group, the class (generic password), the accessibility and the data-protection
/// keychain are the storage's business, the same for every item.
package struct KeychainCacheItem: Sendable, Hashable {
    /// `kSecAttrAccount`.
    package var account: String
    /// `kSecAttrService`.
    package var service: String
    /// `kSecAttrGeneric` (UTF-8), absent for some entries.
    package var generic: String?
    /// `kSecAttrType`.
    package var type: Int
    /// `kSecValueData`: the entry's JSON object.
    package var value: [String: JSONValue]

    package init(account: String, service: String, generic: String?, type: Int, value: [String: JSONValue]) {
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.value = value
    }
}

/// The mapping between the unified cache's entries and MSAL for iOS/macOS's keychain items (one item per entry; its
/// `account` / `service` / `generic` / `type` attributes made of the entry's fields, trimmed, lower-cased, joined by
/// `-`), so that an app moving from MSAL for iOS/macOS finds its users signed in and apps of one keychain group
/// share sign-in. Pure: no keychain call.
package enum KeychainItemLayout {
    /// `kSecAttrType` of the credential types (2000 + MSAL's credential type number) and of the other entries.
    static let credentialTypes: [String: Int] = [
        "accesstoken": 2001, "refreshtoken": 2002, "idtoken": 2003, "legacysingleresourcetoken": 2004,
        "primaryrefreshtoken": 2005, "v1idtoken": 2006, "accesstoken_with_authscheme": 2007,
        "familyrefreshtoken": 2008, "boundrefreshtoken": 2009,
    ]
    static let accountTypes: [String: Int] = ["aad": 1001, "msa": 1002, "mssts": 1003, "adfs": 1004]
    static let appMetadataType = 3001

    /// The items of one entry of `section` (`AccessToken`, `RefreshToken`, `IdToken`, `Account`, `AppMetadata`): one,
    /// or two for a family refresh token (keyed by its family id, and by its client id, as MSAL for iOS/macOS writes
    /// them); none for an entry without the fields its item needs.
    package static func items(section: String, entry: [String: JSONValue]) -> [KeychainCacheItem] {
        func field(_ name: String) -> String { part(entry[name]?.stringValue) }
        switch section.lowercased() {
        case "accesstoken", "refreshtoken", "idtoken":
            let type = field("credential_type")
            guard !type.isEmpty else { return [] }
            let code = credentialTypes[type] ?? 2000
            let account = "\(field("home_account_id"))-\(field("environment"))"
            let realm = type == "refreshtoken" ? "" : field("realm")
            let target = type == "accesstoken" || type == "accesstoken_with_authscheme" ? field("target") : ""
            var owners = [field("client_id")]
            if type == "refreshtoken", !field("family_id").isEmpty { owners.insert(field("family_id"), at: 0) }
            return owners.map { owner in
                let identifier = "\(type)-\(owner)-\(realm)"
                return KeychainCacheItem(account: account, service: "\(identifier)-\(target)", generic: identifier,
                                         type: code, value: entry)
            }
        case "account":
            let authority = field("authority_type")
            return [KeychainCacheItem(account: "\(field("home_account_id"))-\(field("environment"))", service: field("realm"),
                                      generic: field("username"), type: accountTypes[authority] ?? 1003, value: entry)]
        case "appmetadata":
            return [KeychainCacheItem(account: field("environment"), service: "appmetadata-\(field("client_id"))",
                                      generic: field("family_id"), type: appMetadataType, value: entry)]
        default:
            return []
        }
    }

    /// The unified cache section and key of an item MSAL for iOS/macOS wrote (the key as MSAL for Python makes it,
    /// so that every SDK finds the entry); nil for an item that is not a cache entry MSAL reads (account metadata,
    /// the wipe marker, a legacy ADAL item).
    package static func entry(of item: KeychainCacheItem) -> (section: String, key: String, value: [String: JSONValue])? {
        let value = item.value
        func field(_ name: String) -> String { part(value[name]?.stringValue) }
        switch item.type {
        case 2001...2009, 2000:
            let type = field("credential_type")
            let section: String
            switch type {
            case "accesstoken", "accesstoken_with_authscheme": section = "AccessToken"
            case "refreshtoken", "familyrefreshtoken": section = "RefreshToken"
            case "idtoken", "v1idtoken": section = "IdToken"
            default: return nil
            }
            guard value["secret"] != nil else { return nil }
            let realm = section == "RefreshToken" ? "" : field("realm")
            let target = section == "AccessToken" ? field("target") : ""
            let key = [field("home_account_id"), field("environment"), type, field("client_id"), realm, target]
                .joined(separator: "-")
            return (section, key, value)
        case 1001...1004:
            let key = [field("home_account_id"), field("environment"), field("realm")].joined(separator: "-")
            return ("Account", key, value)
        case appMetadataType:
            return ("AppMetadata", "appmetadata-\(field("environment"))-\(field("client_id"))", value)
        default:
            return nil
        }
    }

    /// One part of an attribute: trimmed and lower-cased.
    static func part(_ text: String?) -> String {
        (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Every item of a unified cache document (its unknown sections and unreadable entries have no item).
    package static func items(fromDocument data: Data) -> [KeychainCacheItem] {
        guard let document = JSONValue.parseObject(data) else { return [] }
        var result: [KeychainCacheItem] = []
        for (section, entries) in document.sorted(by: { $0.key < $1.key }) {
            guard let entries = entries.objectValue else { continue }
            for (_, entry) in entries.sorted(by: { $0.key < $1.key }) {
                if let entry = entry.objectValue { result += items(section: section, entry: entry) }
            }
        }
        return result
    }

    /// The unified cache document of `items` (as JSON), which any SDK's reader takes: each item's entry under its
    /// section and key; items that are no cache entry are left out.
    package static func document(from items: [KeychainCacheItem]) -> Data {
        var sections: [String: [String: JSONValue]] = [
            "AccessToken": [:], "RefreshToken": [:], "IdToken": [:], "Account": [:], "AppMetadata": [:],
        ]
        for item in items {
            guard let (section, key, value) = entry(of: item) else { continue }
            sections[section, default: [:]][key] = .object(value)
        }
        let document = JSONValue.object(sections.mapValues { .object($0) })
        return Data((JSONText.serialize(document) ?? "{}").utf8)
    }
}
