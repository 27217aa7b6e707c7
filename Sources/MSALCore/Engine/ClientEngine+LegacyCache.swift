import Foundation

/// ADAL's legacy cache beside the unified one (``EngineSettings/legacyCache``), where MSAL for iOS/macOS consults its
/// legacy accessor (`MSIDDefaultTokenCacheAccessor.m`, the `_otherAccessors` loops): accounts the unified cache
/// lacks, a refresh token when the unified cache has none for the account, the refresh token of a sign-in when the
/// legacy cache is written, the account's items when it is removed. The legacy cache never fails a call: what it
/// cannot read or write is logged and skipped.
extension ClientEngine {
    /// The legacy cache's accounts that `known` does not hold (matched by home account id or user name).
    func legacyAccounts(excluding known: [MSALAccount]) -> [MSALAccount] {
        guard let legacy = settings.legacyCache else { return [] }
        let environments = KnownAliases.expand([settings.authority.descriptor.host])
        let familyId = (try? cache.read { $0.appMetadata(environments: environments, clientId: settings.clientId)?.familyId }) ?? nil
        let found: [LegacyAccount]
        do {
            found = try legacy.accounts(clientId: settings.clientId, familyId: familyId ?? "1", environments: [])
        } catch {
            settings.log.warning("ADAL's legacy cache could not be read; its accounts are left out.")
            return []
        }
        let identifiers = Set(known.compactMap { $0.identifier?.lowercased() })
        let usernames = Set(known.compactMap { $0.username?.lowercased() })
        return found.filter { !identifiers.contains($0.homeAccountId) && !usernames.contains($0.username.lowercased()) }
            .map { account in
                let claims = account.idToken.flatMap { try? IdToken(raw: $0) }?.claims
                let profile = MSALTenantProfile(identifier: claims?["oid"]?.stringValue, environment: account.environment,
                                                tenantId: account.realm, isHomeTenantProfile: true, claims: claims)
                return MSALAccount(username: account.username, homeAccountId: account.homeAccountId,
                                   environment: account.environment, tenantProfiles: [profile], claims: claims)
            }
    }

    /// The account's legacy refresh tokens when the unified cache had none: the family's (`foci-1`, or the
    /// application's family), then the application's own, as the first silent call after moving from ADAL finds
    /// them. Each is a candidate under a key of its own, so that accepting it replaces nothing in the unified cache.
    func legacyRefreshCandidates(_ plan: UserTokenPlan, environments: [String], familyId: String?) -> [RefreshTokenEntry] {
        guard let legacy = settings.legacyCache, let username = plan.account.username, !username.isEmpty else { return [] }
        let tenant = plan.descriptor.tenantKind == .specific ? plan.descriptor.tenant : MSALAccountId(identifier: plan.homeAccountId).tenantId
        do {
            return try legacy.refreshTokens(username: username, clientId: settings.clientId, familyId: familyId ?? "1",
                                            environments: environments, tenant: tenant).compactMap { token in
                guard let secret = token.item.refreshToken else { return nil }
                return RefreshTokenEntry(
                    homeAccountId: plan.homeAccountId, environment: token.environment, clientId: settings.clientId,
                    target: nil, secret: secret, lastModificationTime: nil, familyId: token.familyId,
                    key: "adal-legacy|\(token.clientId)|\(token.environment)|\(token.userId)")
            }
        } catch {
            log(plan.correlationId).warning("ADAL's legacy cache could not be read for a refresh token.")
            return []
        }
    }

    /// Writes a sign-in's refresh token in the legacy format too, when the legacy cache is written.
    func saveLegacyRefreshToken(_ write: CacheTokenResponse, origin: String, correlationId: UUID) {
        guard let legacy = settings.legacyCache, legacy.writesRefreshTokens, let refreshToken = write.refreshToken else { return }
        do {
            try legacy.saveRefreshToken(refreshToken: refreshToken, idToken: write.idToken, origin: origin,
                                        realm: write.idTokenRealm ?? write.realm, clientId: write.clientId,
                                        familyId: write.familyId, homeAccountId: write.homeAccountId)
        } catch {
            log(correlationId).warning("The refresh token could not be written to ADAL's legacy cache.")
        }
    }

    /// Removes the account's items of this application (and its family) from the legacy cache.
    func removeLegacyItems(_ account: MSALAccount) {
        guard let legacy = settings.legacyCache, let username = account.username, !username.isEmpty else { return }
        let environments = KnownAliases.expand([account.environment, settings.authority.descriptor.host])
        do {
            try legacy.remove(username: username, clientId: settings.clientId, familyId: "1", environments: environments)
        } catch {
            settings.log.warning("The account's items could not be removed from ADAL's legacy cache.")
        }
    }
}
