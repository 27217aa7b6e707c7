package import Foundation

/// One stored item of ADAL's legacy cache: its keychain `account` and `service` attributes and the archived item.
package struct LegacyStoredItem: Sendable, Equatable {
    package var account: String
    package var service: String
    package var data: Data

    package init(account: String, service: String, data: Data) {
        self.account = account
        self.service = service
        self.data = data
    }
}

/// Where ADAL's legacy items are kept: the keychain group on iOS, an app-supplied serialized ADAL cache on macOS
/// (``MSALSerializedADALCacheProvider``), a test's store on Linux.
package protocol LegacyTokenCacheStore: Sendable {
    /// Every legacy item (items of other formats are not returned).
    func legacyItems() throws -> [LegacyStoredItem]
    /// Adds or replaces the item named by its account and service.
    func saveLegacyItem(_ item: LegacyStoredItem) throws
    /// Removes the item named by `account` and `service` (nothing when there is none).
    func removeLegacyItem(account: String, service: String) throws
}

/// A refresh token of the legacy cache, with what the unified cache needs to use it.
package struct LegacyRefreshToken: Sendable, Equatable {
    package var item: LegacyTokenCacheItem
    package var userId: String
    package var environment: String
    package var clientId: String

    /// The family of a family's refresh token (kept under `foci-<family>`); nil for an application's own.
    package var familyId: String? { LegacyTokenCacheKey.familyId(ofClientId: clientId) }
}

/// A user the legacy cache holds a refresh token for.
package struct LegacyAccount: Sendable, Equatable {
    /// The home account id: the item's (MSAL writes it), else `<oid>.<tid>` of its id token.
    package var homeAccountId: String
    /// ADAL's user id (the UPN for a work account).
    package var username: String
    package var environment: String
    package var realm: String?
    package var idToken: String?
}

/// ADAL's legacy cache as MSAL's common core uses it beside the unified cache (`MSIDLegacyTokenCacheAccessor.m`):
/// accounts and refresh tokens are read from it when the unified cache has none; a refresh token is written to it
/// after a sign-in when ``writesRefreshTokens`` (the macOS seeding, `MSIDExternalAADCacheSeeder.m`, and the iOS
/// write of MSAL's first releases); an account's items are removed with the account. Items that cannot be read
/// are skipped, never changed.
package struct LegacyTokenCache: Sendable {
    package let store: any LegacyTokenCacheStore
    /// Whether items are named and archived as on iOS (account base64url, ADAL 1.x's user fields).
    package let forIOS: Bool
    /// Whether a sign-in's refresh token is written in the legacy format too.
    package let writesRefreshTokens: Bool

    package init(store: any LegacyTokenCacheStore, forIOS: Bool, writesRefreshTokens: Bool) {
        self.store = store
        self.forIOS = forIOS
        self.writesRefreshTokens = writesRefreshTokens
    }

    /// The readable refresh-token items: keys decoded from the attributes, values from the archive.
    func refreshTokenItems() throws -> [(key: LegacyTokenCacheKey, item: LegacyTokenCacheItem)] {
        try store.legacyItems().compactMap { stored in
            guard let parts = LegacyTokenCacheKey.components(ofService: stored.service), parts.resource == nil,
                  let item = try? LegacyTokenCacheItem.decode(stored.data), item.hasRefreshToken else { return nil }
            let key = LegacyTokenCacheKey(authority: parts.authority, resource: nil, clientId: parts.clientId,
                                          userId: LegacyTokenCacheKey.userId(ofAccount: stored.account, forIOS: forIOS))
            return (key, item)
        }
    }

    /// The users holding a refresh token of `clientId` or its family in one of `environments` (every environment
    /// when empty), as `accountsWithAuthority:` lists them.
    package func accounts(clientId: String, familyId: String?, environments: [String]) throws -> [LegacyAccount] {
        var seen = Set<String>()
        var result: [LegacyAccount] = []
        let owners = Set(Self.owners(clientId: clientId, familyId: familyId))
        for (key, item) in try refreshTokenItems() {
            guard owners.contains(key.clientId.lowercased()) || owners.contains((item.clientId ?? "").lowercased()),
                  let environment = item.environment ?? URLComponents(string: key.authority)?.host,
                  environments.isEmpty || environments.contains(environment.lowercased()),
                  let account = Self.account(item, userId: key.userId, environment: environment),
                  seen.insert(account.homeAccountId + "|" + account.username).inserted else { continue }
            result.append(account)
        }
        return result
    }

    /// The refresh tokens of `username`, in the order a silent call tries them: its family's (`foci-<familyId>`,
    /// as `getLegacyRefreshableTokenForAccountImpl:` asks with a family id), then `clientId`'s own; each in
    /// `environments`, under an authority of `tenant` before one of `common` (`legacyRefreshTokenLookupAliases`).
    /// The store is read once.
    package func refreshTokens(username: String, clientId: String, familyId: String?, environments: [String],
                               tenant: String?) throws -> [LegacyRefreshToken] {
        let user = LegacyUserIdentifier.normalized(username)
        let tenants = [tenant?.lowercased(), "common"].compactMap { $0 }
        let found = try refreshTokenItems().filter { key, item in
            key.userId == user && environments.contains((item.environment ?? "").lowercased())
        }
        return Self.owners(clientId: clientId, familyId: familyId).reversed().compactMap { owner in
            for candidate in tenants {
                if let (key, item) = found.first(where: {
                    $0.key.clientId.lowercased() == owner && ($0.item.realm ?? "").lowercased() == candidate
                }) {
                    return LegacyRefreshToken(item: item, userId: key.userId, environment: item.environment ?? "",
                                              clientId: key.clientId)
                }
            }
            return nil
        }
    }

    /// The client ids a legacy item of `clientId` is kept under: its own, then its family's `foci-<familyId>`;
    /// lower-cased.
    static func owners(clientId: String, familyId: String?) -> [String] {
        [clientId.lowercased()] + (familyId.map { [LegacyTokenCacheKey.familyClientId($0).lowercased()] } ?? [])
    }

    /// Writes a sign-in's refresh token as MSAL writes one (`saveRefreshToken:` then, for a family's token, again
    /// under `foci-<family>`), keyed by ADAL's user id of the id token (``LegacyUserIdentifier/init(writing:)``).
    /// MSAL for macOS first asks for a version 1 id token (`itver=1`) to key it by its `upn`; the version 2 id token's
    /// `preferred_username` is that UPN, and an ADAL app finds the item by the user id it asks for either way.
    /// The item: authority `<origin>/<realm>` (`origin` the scheme, host and port the token came
    /// from), no resource, the id token inside.
    package func saveRefreshToken(refreshToken: String, idToken: String?, origin: String, realm: String,
                                  clientId: String, familyId: String?, homeAccountId: String) throws {
        guard let idToken, let claims = try? IdToken(raw: idToken).claims,
              let user = LegacyUserIdentifier(writing: claims) else { return }
        let authority = "\(origin)/\(realm)"
        var owners = [clientId]
        if let familyId, !familyId.isEmpty { owners.append(LegacyTokenCacheKey.familyClientId(familyId)) }
        for owner in owners {
            var item = LegacyTokenCacheItem(authority: authority, clientId: owner, resource: nil,
                                            refreshToken: refreshToken, idToken: idToken, familyId: familyId,
                                            homeAccountId: homeAccountId)
            item.accessTokenType = "Bearer"
            let key = LegacyTokenCacheKey(authority: authority, resource: nil, clientId: owner, userId: user.userId)
            try store.saveLegacyItem(LegacyStoredItem(account: key.account(forIOS: forIOS), service: key.service,
                                                      data: item.encode(forIOS: forIOS)))
        }
    }

    /// Removes `username`'s items of `clientId` (and its family's) in `environments` (`clearCacheForAccount:`).
    package func remove(username: String, clientId: String, familyId: String?, environments: [String]) throws {
        let user = LegacyUserIdentifier.normalized(username)
        let owners = Set(Self.owners(clientId: clientId, familyId: familyId))
        for stored in try store.legacyItems() {
            guard LegacyTokenCacheKey.userId(ofAccount: stored.account, forIOS: forIOS) == user,
                  let parts = LegacyTokenCacheKey.components(ofService: stored.service),
                  owners.contains(parts.clientId.lowercased()),
                  let host = URLComponents(string: parts.authority)?.host?.lowercased(),
                  environments.isEmpty || environments.contains(host) else { continue }
            try store.removeLegacyItem(account: stored.account, service: stored.service)
        }
    }

    /// The account of an item: its home account id (or its id token's `<oid>.<tid>`) and ADAL's user id.
    static func account(_ item: LegacyTokenCacheItem, userId: String, environment: String) -> LegacyAccount? {
        let claims = item.claims ?? [:]
        let derived: String? = {
            guard let oid = claims["oid"]?.stringValue, let tid = claims["tid"]?.stringValue,
                  !oid.isEmpty, !tid.isEmpty else { return nil }
            return "\(oid).\(tid)".lowercased()
        }()
        guard let homeAccountId = item.homeAccountId ?? derived, !homeAccountId.isEmpty else { return nil }
        let fromClaims = LegacyUserIdentifier(claims: claims)
        let username = fromClaims?.displayable == true ? fromClaims?.userId ?? userId : userId
        guard !username.isEmpty else { return nil }
        return LegacyAccount(homeAccountId: homeAccountId, username: username, environment: environment.lowercased(),
                             realm: claims["tid"]?.stringValue ?? item.realm, idToken: item.idToken)
    }
}
