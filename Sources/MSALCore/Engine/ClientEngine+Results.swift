import Foundation

extension ClientEngine {
    /// Builds a result from a cached access token, with no network (and notes the cache as its source).
    func cachedResult(_ entry: AccessTokenEntry, idToken: String?, extended: Bool, account: MSALAccount,
                      authority: MSALAuthority, descriptor: AuthorityDescriptor, correlationId: UUID) -> MSALResult {
        RequestDiagnostics.current?.noteSource(.cache)
        let profile = tenantProfile(homeAccountId: account.identifier ?? "", realm: entry.realm,
                                    environment: entry.environment, rawIdToken: idToken)
        let resultAuthority = descriptor == authority.descriptor ? authority : authorityObject(for: descriptor)
        return MSALResult(accessToken: entry.secret, expiresOn: entry.expiresOn, extendedLifeTimeToken: extended,
                          idToken: idToken, scopes: Scopes.resultScopes(entry.scopes.scopes), tenantProfile: profile,
                          account: account, authority: resultAuthority, correlationId: correlationId)
    }

    /// The public authority object for `descriptor`, made once and remembered.
    func authorityObject(for descriptor: AuthorityDescriptor) -> MSALAuthority {
        if let known = resultAuthorities.withLock({ $0[descriptor] }) { return known }
        let made = MSALAuthority.make(descriptor)
        resultAuthorities.withLock { memo in
            if memo.count > 256 { memo.removeAll() }
            memo[descriptor] = made
        }
        return made
    }

    /// The tenant profile of `realm`, parsed from its id token once and remembered (keyed by the id token text,
    /// so a new id token gives a new profile).
    func tenantProfile(homeAccountId: String, realm: String, environment: String, rawIdToken: String?) -> MSALTenantProfile {
        let memoKey = ProfileKey(homeAccountId: homeAccountId, realm: realm)
        if let rawIdToken, let memo = tenantProfiles.withLock({ $0[memoKey] }), memo.raw == rawIdToken {
            return memo.profile
        }
        let claims = rawIdToken.flatMap { try? IdToken(raw: $0) }
        let uid = MSALAccountId(identifier: homeAccountId).objectId
        let oid = claims?.oid ?? claims?.sub
        let profile = MSALTenantProfile(identifier: oid, environment: environment, tenantId: realm,
                                        isHomeTenantProfile: oid == nil || uid == nil || oid == uid
                                            || (uid?.hasPrefix(oid ?? "\u{0}") ?? false),
                                        claims: claims?.claims)
        if let rawIdToken {
            tenantProfiles.withLock { memo in
                if memo.count > 65_536 { memo.removeAll() }
                memo[memoKey] = (rawIdToken, profile)
            }
        }
        return profile
    }
}
