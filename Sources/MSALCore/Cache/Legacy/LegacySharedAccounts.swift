package import Foundation

/// An account of the legacy shared-accounts list (Microsoft's apps' own list of signed-in users, read by
/// `MSALLegacySharedAccountsProvider`): an ADAL (work or school) or an MSA (personal) entry.
package struct LegacySharedAccount: MSALAccountProtocol, @unchecked Sendable {
    package var username: String?
    package var identifier: String?
    package var environment: String
    package var accountClaims: [String: Any]?
    /// The entry's `id` and `type` (`ADAL` or `MSA`), and its `oid` (work or school accounts).
    package var entryId: String
    package var type: String
    package var objectId: String?
    package var signInStatus: [String: String]
}

/// The legacy shared-accounts list as MSAL for iOS/macOS reads and writes it (`MSALLegacySharedAccountsProvider.m`,
/// `MSALLegacySharedAccount.m`, `MSALLegacySharedADALAccount.m`, `MSALLegacySharedMSAAccount.m`): one keychain item
/// per version (account `AccountsV1`…`AccountsV3`), each a JSON object of `lastWriteTimestamp` (seconds since 1970)
/// and the entries by id. Pure: the items' data in, the data to write out.
package enum LegacySharedAccounts {
    package static let versions = [1, 2, 3]
    static let msaTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// The keychain account of a version's item.
    package static func itemAccount(version: Int) -> String { "AccountsV\(version)" }

    /// A version's list: its timestamp and entries (nil for data that is not a JSON object).
    package struct List: Sendable, Equatable {
        package var timestamp: Double
        package var entries: [String: [String: JSONValue]]

        package init?(_ data: Data?) {
            guard let data, let object = JSONValue.parseObject(data) else { return nil }
            timestamp = object["lastWriteTimestamp"]?.doubleValue ?? 0
            entries = object.filter { $0.key != "lastWriteTimestamp" }.compactMapValues(\.objectValue)
        }

        package init() {
            timestamp = 0
            entries = [:]
        }

        package func data(timestamp: Double) -> Data {
            var object = entries.mapValues(JSONValue.object)
            object["lastWriteTimestamp"] = .number(timestamp.rounded(.down))
            return Data((JSONText.serialize(.object(object)) ?? "{}").utf8)
        }
    }

    /// The accounts of the newest versions (V3 down to V1, a version read only while it is newer than the last one
    /// read) matching `parameters` for the app `bundleId`; entries of another type or without their required fields
    /// are skipped.
    package static func accounts(_ lists: [Int: List], parameters: MSALAccountEnumerationParameters,
                                 bundleId: String) -> [LegacySharedAccount] {
        var result: [LegacySharedAccount] = []
        var seen = Set<String>()
        var newest = -Double.infinity
        for version in versions.reversed() {
            guard let list = lists[version] else { continue }
            guard list.timestamp > newest else { break }
            newest = list.timestamp
            for (_, entry) in list.entries.sorted(by: { $0.key < $1.key }) {
                guard let account = account(entry), matches(account, parameters, bundleId: bundleId),
                      seen.insert(account.entryId).inserted else { continue }
                result.append(account)
            }
        }
        return result
    }

    /// The account of an entry: `ADAL` needs `authEndpointUrl` (its host the environment; a `common` authority makes
    /// the identifier `<oid>.<tenantId>`, another `additionalProperties.home_account_id`), `MSA` a `cid` (its uid the
    /// identifier in the consumers tenant, `email` the user name).
    package static func account(_ entry: [String: JSONValue]) -> LegacySharedAccount? {
        func text(_ key: String) -> String? {
            guard let value = entry[key]?.stringValue, !value.isEmpty else { return nil }
            return value
        }
        guard let type = text("type"), let id = text("id") else { return nil }
        let status = (entry["signInStatus"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        switch type {
        case "ADAL":
            guard let endpoint = text("authEndpointUrl"), let url = URLComponents(string: endpoint),
                  let host = url.host?.lowercased(), !host.isEmpty else { return nil }
            let tenant = url.path.split(separator: "/").first.map { String($0).lowercased() } ?? ""
            let oid = text("oid"), tid = text("tenantId")
            let identifier: String? = tenant == "common"
                ? oid.flatMap { oid in tid.map { "\(oid).\($0)" } }
                : entry["additionalProperties"]?.objectValue?["home_account_id"]?.stringValue
            var claims: [String: Any] = [:]
            if let oid { claims["oid"] = oid }
            if let tid { claims["tid"] = tid }
            if let name = text("displayName") { claims["name"] = name }
            return LegacySharedAccount(username: text("username"), identifier: identifier, environment: host,
                                       accountClaims: claims, entryId: id, type: type, objectId: oid, signInStatus: status)
        case "MSA":
            guard let cid = text("cid"), let uid = uid(fromCID: cid) else { return nil }
            return LegacySharedAccount(username: text("email"), identifier: "\(uid).\(msaTenant)", environment: "login.windows.net",
                                       accountClaims: ["tid": msaTenant, "oid": uid], entryId: id, type: type, objectId: uid,
                                       signInStatus: status)
        default:
            return nil
        }
    }

    /// An MSA `cid` (a hex PUID of at most 16 digits) as its uid: `00000000-0000-0000-xxxx-xxxxxxxxxxxx`.
    package static func uid(fromCID cid: String) -> String? {
        let hex = cid.lowercased()
        guard !hex.isEmpty, hex.count <= 16, hex.allSatisfy(\.isHexDigit) else { return nil }
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        return "00000000-0000-0000-\(padded.prefix(4))-\(padded.dropFirst(4))"
    }

    static func matches(_ account: LegacySharedAccount, _ parameters: MSALAccountEnumerationParameters, bundleId: String) -> Bool {
        if let identifier = parameters.identifier, account.identifier?.lowercased() != identifier.lowercased() { return false }
        if let username = parameters.username, account.username?.lowercased() != username.lowercased() { return false }
        if let profile = parameters.tenantProfileIdentifier {
            guard account.type == "ADAL", account.objectId?.lowercased() == profile.lowercased() else { return false }
        }
        if parameters.returnOnlySignedInAccounts { return account.signInStatus[bundleId] == "SignedIn" }
        return account.signInStatus.isEmpty || account.signInStatus.values.contains("SignedIn")
    }

    /// `list` after MSAL told of a signed-in account (`updateAccount:idTokenClaims:`): its entries (matched by `oid`,
    /// an MSA one by identifier) marked signed in for the app and updated, or a new `ADAL` entry when none matches and
    /// the claims name an `oid`. Version 1 entries are left as they are.
    package static func updated(_ list: List, version: Int, account: any MSALAccountProtocol, claims: [String: Any],
                                bundleId: String, appName: String, now: Date, newId: () -> String) -> List {
        guard version > 1 else { return list }
        var list = list
        let oid = claims["oid"] as? String
        let isMSA = account.identifier?.lowercased().hasSuffix(".\(msaTenant)") == true
        let matching = list.entries.filter { _, entry in
            guard let existing = Self.account(entry) else { return false }
            if isMSA { return existing.identifier?.lowercased() == account.identifier?.lowercased() }
            return oid != nil && existing.objectId?.lowercased() == oid?.lowercased()
        }.map(\.key)
        if matching.isEmpty {
            guard !isMSA, let oid, !oid.isEmpty else { return list }
            let id = newId()
            let tid = claims["tid"] as? String ?? ""
            let home = account.identifier?.split(separator: ".").last.map(String.init)
            let tenantPath = home?.lowercased() == tid.lowercased() ? "common" : tid
            var entry: [String: JSONValue] = [
                "id": .string(id), "type": .string("ADAL"), "environment": .string("PROD"), "oid": .string(oid),
                "tenantId": .string(tid), "authEndpointUrl": .string("https://\(account.environment)/\(tenantPath)"),
                "signInStatus": .object([bundleId: .string("SignedIn")]),
                "additionalProperties": .object(["createdBy": .string(appName),
                                                 "home_account_id": .string(account.identifier ?? "")]),
            ]
            if let username = account.username { entry["username"] = .string(username) }
            if let name = claims["name"] as? String { entry["displayName"] = .string(name) }
            if version >= 3 { entry["originAppId"] = .string(bundleId) }
            list.entries[id] = entry
            return list
        }
        for id in matching {
            var entry = list.entries[id] ?? [:]
            var status = entry["signInStatus"]?.objectValue ?? [:]
            status[bundleId] = .string("SignedIn")
            entry["signInStatus"] = .object(status)
            entry["additionalProperties"] = .object(stamped(entry, appName: appName, now: now,
                                                            home: account.identifier))
            if let username = account.username { entry["username"] = .string(username) }
            list.entries[id] = entry
        }
        return list
    }

    /// `list` after MSAL removed an account (`removeAccount:wipeAccount:tenantProfiles:`): its entries (by the
    /// object ids given) deleted when `wipe`, else marked signed out for the app (version 1 entries only when wiped).
    package static func removed(_ list: List, version: Int, objectIds: [String], wipe: Bool, bundleId: String,
                                appName: String, now: Date) -> List {
        var list = list
        let oids = Set(objectIds.map { $0.lowercased() })
        for (id, entry) in list.entries {
            guard let existing = account(entry), let oid = existing.objectId?.lowercased(), oids.contains(oid) else { continue }
            if wipe {
                list.entries[id] = nil
            } else if version > 1 {
                var changed = entry
                var status = entry["signInStatus"]?.objectValue ?? [:]
                status[bundleId] = .string("SignedOut")
                changed["signInStatus"] = .object(status)
                changed["additionalProperties"] = .object(stamped(entry, appName: appName, now: now, home: nil))
                list.entries[id] = changed
            }
        }
        return list
    }

    /// `additionalProperties` with `updatedBy`, `updatedAt` (`yyyy-MM-dd'T'HH:mm:ssZ`) and the home account id.
    static func stamped(_ entry: [String: JSONValue], appName: String, now: Date, home: String?) -> [String: JSONValue] {
        var properties = entry["additionalProperties"]?.objectValue ?? [:]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        properties["updatedBy"] = .string(appName)
        properties["updatedAt"] = .string(formatter.string(from: now))
        if let home { properties["home_account_id"] = .string(home) }
        return properties
    }
}
