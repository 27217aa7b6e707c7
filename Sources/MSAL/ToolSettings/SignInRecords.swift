import Foundation
import MSALSupport

/// What `msal login` signed in with, kept with the account so that the tool's other commands and the credential
/// chain's msal-account step use it without flags: `$XDG_STATE_HOME/msal/sign-ins.json` (else
/// `~/.local/state/msal/`), mode 0600, written whole and renamed into place.
///
/// ```json
/// { "active": "<home account id>",
///   "accounts": { "<home account id>": { "username": "…", "client_id": "…", "authority": "…", "ca_file": "…" } } }
/// ```
///
/// A record holds no token and no secret. A file that cannot be read counts as empty: it only spares flags.
package struct SignInRecords: Sendable, Equatable {
    /// One sign-in: the settings it was made with.
    package struct Entry: Sendable, Equatable {
        package var username: String?
        package var clientId: String
        package var authority: String
        package var caFile: String?
        package var graphEndpoint: String?
        package var cache: String?
        package var knownAuthorities: [String]?
        /// Signed in through the device's identity broker.
        package var broker: Bool?
        /// When the sign-in was last made active, as a counter over all records (higher is more recent): after the
        /// active account signs out, the most recent other one becomes active.
        package var recency: Int?

        package init(username: String?, clientId: String, authority: String, caFile: String? = nil,
                     graphEndpoint: String? = nil, cache: String? = nil, knownAuthorities: [String]? = nil,
                     broker: Bool? = nil, recency: Int? = nil) {
            self.broker = broker
            self.recency = recency
            self.username = username
            self.clientId = clientId
            self.authority = authority
            self.caFile = caFile
            self.graphEndpoint = graphEndpoint
            self.cache = cache
            self.knownAuthorities = knownAuthorities
        }
    }

    /// The home account id of the active sign-in (the last `msal login` or `msal switch`).
    package var active: String?
    /// Sign-ins by home account id.
    package var accounts: [String: Entry] = [:]

    package static let maximumSize = 1 << 20
    package static let empty = SignInRecords()

    package init(active: String? = nil, accounts: [String: Entry] = [:]) {
        self.active = active
        self.accounts = accounts
    }

    /// The record file for `environment`.
    package static func location(environment: [String: String]) -> URL {
        ToolDefaults.stateDirectory(environment: environment).appendingPathComponent("sign-ins.json")
    }

    /// The sign-in named by `account` (a user name, case-insensitive, or a home account id), else the active one.
    package func entry(named account: String?) -> (homeAccountId: String, entry: Entry)? {
        if let account {
            if let entry = accounts[account] { return (account, entry) }
            let matches = accounts.filter { $0.value.username?.caseInsensitiveCompare(account) == .orderedSame }
            return matches.count == 1 ? matches.first.map { ($0.key, $0.value) } : nil
        }
        guard let active, let entry = accounts[active] else { return nil }
        return (active, entry)
    }

    /// Reads `file`; anything unreadable or malformed is an empty record.
    package static func load(_ file: URL) -> SignInRecords {
        guard let data = try? OutsideFile.read(file.path, limit: maximumSize),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return .empty }
        var records = SignInRecords()
        records.active = root["active"] as? String
        for (id, value) in root["accounts"] as? [String: Any] ?? [:] {
            guard let fields = value as? [String: Any], let clientId = fields["client_id"] as? String,
                  let authority = fields["authority"] as? String else { continue }
            records.accounts[id] = Entry(
                username: fields["username"] as? String, clientId: clientId, authority: authority,
                caFile: fields["ca_file"] as? String, graphEndpoint: fields["graph_endpoint"] as? String,
                cache: fields["cache"] as? String, knownAuthorities: fields["known_authorities"] as? [String],
                broker: fields["broker"] as? Bool, recency: fields["recency"] as? Int)
        }
        return records
    }

    /// Writes the records to `file` (0600, created exclusively and renamed into place).
    package func save(_ file: URL) throws(ToolSettingsError) {
        var object: [String: Any] = [:]
        if let active { object["active"] = active }
        object["accounts"] = accounts.mapValues { entry -> [String: Any] in
            var fields: [String: Any] = ["client_id": entry.clientId, "authority": entry.authority]
            fields["username"] = entry.username
            fields["ca_file"] = entry.caFile
            fields["graph_endpoint"] = entry.graphEndpoint
            fields["cache"] = entry.cache
            fields["known_authorities"] = entry.knownAuthorities
            if entry.broker == true { fields["broker"] = true }
            fields["recency"] = entry.recency
            return fields
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
            try PrivateFiles.replace(file.path, with: data, mode: 0o600)
        } catch {
            throw ToolSettingsError("Cannot record the sign-in in \(file.path).")
        }
    }
}
