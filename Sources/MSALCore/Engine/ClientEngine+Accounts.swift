import Foundation

extension ClientEngine {
    /// Every account of this application in the cache, with its tenant profiles.
    func allAccounts(onlySignedIn: Bool = true, cache: (any TokenCachePort)? = nil) throws -> [MSALAccount] {
        try (cache ?? self.cache).read { document in
            let homeIds = orderedHomeAccountIds(document.accounts(environments: nil))
            return homeIds.flatMap { buildAccounts(document, homeAccountId: $0, onlySignedIn: onlySignedIn) }
        }
    }

    /// The accounts matching `parameters`.
    func accounts(matching parameters: MSALAccountEnumerationParameters,
                  cache: (any TokenCachePort)? = nil) throws -> [MSALAccount] {
        try allAccounts(onlySignedIn: parameters.returnOnlySignedInAccounts, cache: cache).filter(parameters.matches)
    }

    /// Removes this application's refresh tokens (and its family's) for `account`, the account's access and id
    /// tokens and its account entries; with `everyClient` (``MSALSignoutParameters/wipeAccount``) the refresh
    /// tokens of every application sharing the cache too, which signs the account out of all of them.
    func remove(_ account: MSALAccount, everyClient: Bool = false) throws {
        let (homeAccountId, environments) = try removal(account)
        try cache.updateNow { document in
            removeAccount(document, homeAccountId: homeAccountId, environments: environments, everyClient: everyClient)
        }
        forgetCurrent(homeAccountId)
    }

    /// ``remove(_:everyClient:)`` through `cache` (a partition of a partitioned cache).
    func remove(_ account: MSALAccount, everyClient: Bool, cache: any TokenCachePort) async throws {
        let (homeAccountId, environments) = try removal(account)
        try await cache.update { [self] document in
            removeAccount(document, homeAccountId: homeAccountId, environments: environments, everyClient: everyClient)
        }
        forgetCurrent(homeAccountId)
    }

    private func removal(_ account: MSALAccount) throws -> (homeAccountId: String, environments: [String]) {
        guard let homeAccountId = account.identifier else {
            throw MSALErrorInfo.invalidParameter("The account has no identifier.")
        }
        return (homeAccountId, KnownAliases.expand([account.environment, settings.authority.descriptor.host]))
    }

    private func removeAccount(_ document: TokenCacheDocument, homeAccountId: String, environments: [String],
                               everyClient: Bool) {
        let familyId = document.appMetadata(environments: environments, clientId: settings.clientId)?.familyId
        document.removeAccount(homeAccountId: homeAccountId, environments: environments,
                               clientId: settings.clientId, familyId: familyId, everyClient: everyClient)
    }

    private func forgetCurrent(_ homeAccountId: String) {
        currentAccountMemory.withLock { current in
            if current?.identifier == homeAccountId { current = nil }
        }
    }

    /// Home account ids in first-seen order.
    private func orderedHomeAccountIds(_ entries: [AccountEntry]) -> [String] {
        var seen = Set<String>()
        return entries.compactMap { seen.insert($0.homeAccountId).inserted ? $0.homeAccountId : nil }
    }

    /// The account `homeAccountId` as this application sees it (nil when it has no tokens for this application and
    /// `onlySignedIn` is set): one ``MSALAccount`` per environment alias group, with a tenant profile per realm.
    func buildAccounts(_ document: TokenCacheDocument, homeAccountId: String, onlySignedIn: Bool = true) -> [MSALAccount] {
        let entries = document.accounts(homeAccountId: homeAccountId)
        guard let first = entries.first else { return [] }
        let environments = KnownAliases.expand(entries.map(\.environment))
        if onlySignedIn {
            let metadata = document.appMetadata(environments: environments, clientId: settings.clientId)
            let hasOwnToken = !document.refreshTokens(homeAccountId: homeAccountId, environments: environments,
                                                      clientId: settings.clientId).isEmpty
                || !document.idTokens(homeAccountId: homeAccountId, environments: environments, clientId: settings.clientId).isEmpty
            let hasFamilyToken = (metadata == nil || metadata?.familyId != nil)
                && !document.familyRefreshTokens(homeAccountId: homeAccountId, environments: environments,
                                                 familyId: metadata?.familyId ?? "1").isEmpty
            guard hasOwnToken || hasFamilyToken else { return [] }
        }
        let uid = MSALAccountId(identifier: homeAccountId).objectId
        let homeTenant = MSALAccountId(identifier: homeAccountId).tenantId
        var profiles: [MSALTenantProfile] = []
        var homeClaims: [String: JSONValue]?
        var username: String? = first.username.isEmpty ? nil : first.username
        for entry in entries {
            let raw = document.idToken(homeAccountId: homeAccountId, environments: environments, realm: entry.realm,
                                       clientId: settings.clientId)?.secret
            let claims = raw.flatMap { try? IdToken(raw: $0) }?.claims
            let isHome = entry.realm.lowercased() == homeTenant?.lowercased()
                || entry.localAccountId.lowercased() == uid?.lowercased()
            if isHome {
                homeClaims = claims
                if !entry.username.isEmpty { username = entry.username }
            }
            profiles.append(MSALTenantProfile(identifier: entry.localAccountId, environment: entry.environment,
                                              tenantId: entry.realm, isHomeTenantProfile: isHome, claims: claims))
        }
        return [MSALAccount(username: username, homeAccountId: homeAccountId, environment: first.environment,
                            tenantProfiles: profiles, claims: homeClaims)]
    }
}

extension MSALAccountEnumerationParameters {
    /// Whether `account` passes these filters (home account id, user name, tenant profile).
    func matches(_ account: MSALAccount) -> Bool {
        if let identifier, account.identifier?.lowercased() != identifier.lowercased() { return false }
        if let username, account.username?.caseInsensitiveCompare(username) != .orderedSame { return false }
        if let profileId = tenantProfileIdentifier,
           !(account.tenantProfiles ?? []).contains(where: { $0.identifier?.lowercased() == profileId.lowercased() }) {
            return false
        }
        return true
    }
}
