import Foundation

/// A proof-of-possession access token as the cache keeps it.
struct PoPAccessToken: Sendable, Equatable {
    var homeAccountId: String
    var environment: String
    var clientId: String
    var realm: String
    /// The granted scopes, MSAL Python's `target` form.
    var target: String
    var secret: String
    /// The RFC 7638 thumbprint of the key it is bound to (`key_id`, MSAL for Python's name for it).
    var keyId: String
    var cachedAt: Int64
    var expiresOn: Int64
    var extendedExpiresOn: Int64
    /// The hash of the incoming assertion an on-behalf-of token was obtained with (`user_assertion_hash`, as in the
    /// `AccessToken` section); nil for other tokens.
    var userAssertionHash: String? = nil

    init(homeAccountId: String, environment: String, clientId: String, realm: String, target: String, secret: String,
         keyId: String, cachedAt: Int64, expiresOn: Int64, extendedExpiresOn: Int64) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.clientId = clientId
        self.realm = realm
        self.target = target
        self.secret = secret
        self.keyId = keyId
        self.cachedAt = cachedAt
        self.expiresOn = expiresOn
        self.extendedExpiresOn = extendedExpiresOn
    }

    /// The bound token of a validated response.
    init(_ response: CacheTokenResponse, keyId: String, secret: String) {
        self.init(homeAccountId: response.homeAccountId, environment: response.environment, clientId: response.clientId,
                  realm: response.realm, target: TokenCacheDocument.pythonTarget(response.target), secret: secret,
                  keyId: keyId, cachedAt: CacheTimestamp(response.cachedAt).seconds,
                  expiresOn: CacheTimestamp(response.expiresOn).seconds,
                  extendedExpiresOn: CacheTimestamp(response.extendedExpiresOn ?? response.expiresOn).seconds)
        userAssertionHash = response.userAssertionHash
    }

    /// The entry's key: MSAL for iOS/macOS's credential type for tokens of another scheme, and the key id, so that
    /// tokens bound to different keys, and bearer tokens of the same scopes, never replace each other.
    var key: String {
        ([homeAccountId, environment, "accesstoken_with_authscheme", clientId, realm, target, keyId]
            + (userAssertionHash.map { [$0] } ?? [])).joined(separator: "-").lowercased()
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "credential_type": .string("AccessToken_With_AuthScheme"), "secret": .string(secret),
            "home_account_id": .string(homeAccountId), "environment": .string(environment),
            "client_id": .string(clientId), "realm": .string(realm), "target": .string(target),
            "token_type": .string("pop"), "key_id": .string(keyId), "cached_at": .string(String(cachedAt)),
            "expires_on": .string(String(expiresOn)), "extended_expires_on": .string(String(extendedExpiresOn)),
        ]
        if let userAssertionHash { object["user_assertion_hash"] = .string(userAssertionHash) }
        return .object(object)
    }

    /// An entry read from a cache file: nil unless every field has its type.
    init?(json: JSONValue) {
        guard case .object(let fields) = json,
              let secret = fields["secret"]?.stringValue, let home = fields["home_account_id"]?.stringValue,
              let environment = fields["environment"]?.stringValue, let clientId = fields["client_id"]?.stringValue,
              let realm = fields["realm"]?.stringValue, let target = fields["target"]?.stringValue,
              let keyId = fields["key_id"]?.stringValue, fields["token_type"]?.stringValue?.lowercased() == "pop",
              let expiresOn = fields["expires_on"]?.stringValue.flatMap({ Int64($0) }) else { return nil }
        let cachedAt = fields["cached_at"]?.stringValue.flatMap { Int64($0) } ?? 0
        let extended = fields["extended_expires_on"]?.stringValue.flatMap { Int64($0) } ?? expiresOn
        self.init(homeAccountId: home, environment: environment, clientId: clientId, realm: realm, target: target,
                  secret: secret, keyId: keyId, cachedAt: cachedAt, expiresOn: expiresOn, extendedExpiresOn: extended)
        userAssertionHash = fields["user_assertion_hash"]?.stringValue
    }
}

/// Proof-of-possession access tokens, in a top-level section of their own, `"AccessToken_With_AuthScheme"`, apart
/// from the `AccessToken` section: MSAL for Python's bearer lookup reads every entry of that section whatever its
/// `token_type`, so a bound token there would be sent as a bearer token by an app sharing the cache. Other MSAL
/// libraries keep sections they do not know.
extension TokenCacheDocument {
    static let popAccessTokenSection = "AccessToken_With_AuthScheme"
    /// At most this many bound tokens are kept; past it, the ones expiring first go.
    static let maximumPoPAccessTokens = 512

    private var popEntries: [String: JSONValue] {
        if case .object(let entries)? = unknownSections[Self.popAccessTokenSection] { return entries }
        return [:]
    }

    /// Stores `token`, replacing the account's tokens bound to the same key whose scopes overlap it.
    func savePoPAccessToken(_ token: PoPAccessToken) {
        var entries = popEntries
        let scopes = Set(token.target.lowercased().split(separator: " "))
        for (key, value) in entries {
            guard let other = PoPAccessToken(json: value) else { continue }
            if other.homeAccountId.lowercased() == token.homeAccountId.lowercased(),
               other.clientId.lowercased() == token.clientId.lowercased(), other.realm.lowercased() == token.realm.lowercased(),
               other.keyId == token.keyId, other.userAssertionHash == token.userAssertionHash, !scopes.isDisjoint(with: other.target.lowercased().split(separator: " ")) {
                entries[key] = nil
            }
        }
        if entries.count >= Self.maximumPoPAccessTokens {
            let oldest = entries.compactMap { key, value in PoPAccessToken(json: value).map { (key, $0.expiresOn) } }
                .sorted { $0.1 < $1.1 }.prefix(entries.count - Self.maximumPoPAccessTokens + 1)
            for (key, _) in oldest { entries[key] = nil }
        }
        entries[token.key] = token.json
        if unknownSections.updateValue(.object(entries), forKey: Self.popAccessTokenSection) == nil {
            sectionOrder.append(.unknown(Self.popAccessTokenSection))
        }
        noteChange()
    }

    /// The token bound to `keyId` for the account, app, tenant and scopes (scopes ⊆ its target), expiring last, and
    /// obtained with the assertion of `assertionHash` (on-behalf-of; nil: a token obtained without one); nil when
    /// none. Expiry is the caller's check.
    func findPoPAccessToken(homeAccountId: String, environments: [String], clientId: String, realm: String,
                            scopes: [String], keyId: String, assertionHash: String? = nil) -> PoPAccessToken? {
        let wanted = Set(scopes.map { $0.lowercased() })
        var best: PoPAccessToken?
        for value in popEntries.values {
            guard let token = PoPAccessToken(json: value), token.keyId == keyId, token.userAssertionHash == assertionHash,
                  token.homeAccountId.lowercased() == homeAccountId.lowercased(),
                  token.clientId.lowercased() == clientId.lowercased(), token.realm.lowercased() == realm.lowercased(),
                  environments.contains(where: { $0.lowercased() == token.environment.lowercased() }),
                  wanted.isSubset(of: Set(token.target.lowercased().split(separator: " ").map(String.init))) else { continue }
            if best == nil || token.expiresOn > best!.expiresOn { best = token }
        }
        return best
    }

    /// Removes the bound app tokens of `clientId` (``removePoPAccessTokens(homeAccountId:)`` for a user's).
    func removePoPAppTokens(clientId: String) {
        removePoPAccessTokens { $0.homeAccountId.isEmpty && $0.clientId.lowercased() == clientId.lowercased() }
    }

    /// Removes the account's bound tokens (sign-out).
    func removePoPAccessTokens(homeAccountId: String) {
        removePoPAccessTokens { $0.homeAccountId.lowercased() == homeAccountId.lowercased() }
    }

    /// Removes the bound tokens `matching` selects (entries that are not bound tokens stay).
    private func removePoPAccessTokens(matching: (PoPAccessToken) -> Bool) {
        let entries = popEntries
        let kept = entries.filter { entry in PoPAccessToken(json: entry.value).map { !matching($0) } ?? true }
        guard kept.count != entries.count else { return }
        unknownSections[Self.popAccessTokenSection] = .object(kept)
        noteChange()
    }
}
