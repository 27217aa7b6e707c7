import Foundation

/// What the cache holds for one application, without any secret: per account, its access tokens (scopes, tenant,
/// expiry) and whether a refresh token is there. Read from the unified cache document (other SDKs' entries and
/// fields ignored; an entry of the wrong shape skipped).
struct CacheInventory: Equatable {
    struct AccessToken: Equatable {
        var scopes: [String]
        var tenantId: String
        var expiresOn: Date?
        /// The key a proof-of-possession token is bound to (its RFC 7638 thumbprint); nil for a bearer token.
        var keyId: String? = nil
    }

    struct Holdings: Equatable {
        var accessTokens: [AccessToken] = []
        var hasRefreshToken = false
    }

    /// By home account id.
    var accounts: [String: Holdings] = [:]

    /// The inventory of `data` (the cache document) for `clientId`; an unreadable document is empty.
    static func read(_ data: Data?, clientId: String) -> CacheInventory {
        var inventory = CacheInventory()
        guard let data, let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return inventory }
        let bearer = (root["AccessToken"] as? [String: Any] ?? [:]).values
        let bound = (root["AccessToken_With_AuthScheme"] as? [String: Any] ?? [:]).values
        for case let entry as [String: Any] in Array(bearer) + Array(bound) {
            guard entry["client_id"] as? String == clientId, let home = entry["home_account_id"] as? String,
                  !home.isEmpty else { continue }
            let keyId = (entry["token_type"] as? String)?.lowercased() == "pop" ? entry["key_id"] as? String : nil
            let target = entry["target"] as? String ?? ""
            let expires = (entry["expires_on"] as? String).flatMap(TimeInterval.init)
                ?? (entry["expires_on"] as? NSNumber)?.doubleValue
            let token = AccessToken(scopes: target.split(separator: " ").map(String.init),
                                    tenantId: entry["realm"] as? String ?? "",
                                    expiresOn: expires.flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil },
                                    keyId: keyId)
            inventory.accounts[home, default: Holdings()].accessTokens.append(token)
        }
        for case let entry as [String: Any] in (root["RefreshToken"] as? [String: Any] ?? [:]).values {
            guard let home = entry["home_account_id"] as? String, !home.isEmpty else { continue }
            let ours = entry["client_id"] as? String == clientId || !(entry["family_id"] as? String ?? "").isEmpty
            if ours { inventory.accounts[home, default: Holdings()].hasRefreshToken = true }
        }
        for home in inventory.accounts.keys {
            inventory.accounts[home]?.accessTokens.sort { ($0.tenantId, $0.scopes.joined()) < ($1.tenantId, $1.scopes.joined()) }
        }
        return inventory
    }
}
