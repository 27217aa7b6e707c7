import Foundation

/// On-behalf-of tokens: a middle-tier API's tokens for a user, found again only for the same incoming assertion
/// (the `user_assertion_hash` field MSAL.NET writes on them; access tokens are found with
/// ``findAccessToken(homeAccountId:environments:clientId:realm:scopes:assertionHash:)``).
extension TokenCacheDocument {
    static let userAssertionHashField = "user_assertion_hash"

    /// The refresh tokens of `homeAccountId` and `clientId` obtained with the assertion whose hash is
    /// `assertionHash`, newest first.
    func onBehalfOfRefreshTokens(homeAccountId: String, assertionHash: String, environments: [String],
                                 clientId: String) -> [RefreshTokenEntry] {
        refreshTokens(homeAccountId: homeAccountId, environments: environments, clientId: clientId).filter {
            $0.extraFields[Self.userAssertionHashField] == .string(assertionHash)
        }
    }
}
