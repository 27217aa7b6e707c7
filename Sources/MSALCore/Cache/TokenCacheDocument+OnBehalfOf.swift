import Foundation

/// On-behalf-of tokens: a middle-tier API's tokens for a user, found again only for the same incoming assertion
/// (the `user_assertion_hash` field MSAL.NET writes on them).
extension TokenCacheDocument {
    static let userAssertionHashField = "user_assertion_hash"

    /// The access token of `homeAccountId` and `clientId` in `realm` for `scopes` obtained with the assertion
    /// whose hash is `assertionHash`; the one expiring last when several match.
    func findOnBehalfOfAccessToken(homeAccountId: String, assertionHash: String, environments: [String],
                                   clientId: String, realm: String, scopes: ScopeSet) -> AccessTokenEntry? {
        let bucket = accessTokens.bucket(home: CacheStrings.lower(homeAccountId), client: CacheStrings.lower(clientId),
                                         realm: CacheStrings.lower(realm))
        return bucket.filter { entry in
            entry.isBearer && scopes.isSubset(of: entry.scopes) && Self.environment(entry.environmentKey, in: environments)
                && entry.extraFields[Self.userAssertionHashField] == .string(assertionHash)
        }.max { $0.expiresOnValue.seconds < $1.expiresOnValue.seconds }
    }

    /// The refresh tokens of `homeAccountId` and `clientId` obtained with the assertion whose hash is
    /// `assertionHash`, newest first.
    func onBehalfOfRefreshTokens(homeAccountId: String, assertionHash: String, environments: [String],
                                 clientId: String) -> [RefreshTokenEntry] {
        refreshTokens(homeAccountId: homeAccountId, environments: environments, clientId: clientId).filter {
            $0.extraFields[Self.userAssertionHashField] == .string(assertionHash)
        }
    }
}
