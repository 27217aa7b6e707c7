import Foundation

/// App tokens: access tokens an application gets as itself (client credentials, managed identity). They belong to
/// no account: `home_account_id` is JSON null, as MSAL for Python writes and looks them up, so the two libraries
/// share them in one file. They are keyed per client, tenant (`realm`) and scopes, and never have a refresh token.
extension TokenCacheDocument {
    /// An app token to store.
    struct AppTokenWrite: Sendable {
        var environment: String
        var clientId: String
        /// The tenant the token was issued in.
        var realm: String
        /// The requested scopes, space-separated (stored sorted, as MSAL for Python does).
        var target: String
        var secret: String
        var cachedAt: Date
        var expiresOn: Date
        var extendedExpiresOn: Date?
        var refreshOn: Date?
    }

    /// Stores an app token under MSAL for Python's key, replacing this client's app tokens of the same tenant and
    /// environment whose scopes overlap, and writes the app metadata as a sign-in does.
    @discardableResult
    func saveAppToken(_ write: AppTokenWrite) -> AccessTokenEntry {
        noteChange()
        let response = CacheTokenResponse(
            homeAccountId: "", environment: write.environment, clientId: write.clientId, realm: write.realm,
            target: write.target, accessToken: write.secret, cachedAt: write.cachedAt, expiresOn: write.expiresOn,
            extendedExpiresOn: write.extendedExpiresOn, refreshOn: write.refreshOn)
        let entry = saveAccessToken(response, target: Self.pythonTarget(write.target), secret: write.secret,
                                    now: CacheTimestamp(write.cachedAt), homeAccountIdIsNull: true)
        let metadataKey = AppMetadataEntry.pythonKey(environment: write.environment, clientId: write.clientId)
        if appMetadataEntries[metadataKey] == nil {
            touch(.appMetadata)
            appMetadataEntries[metadataKey] = AppMetadataEntry(
                clientId: write.clientId, environment: write.environment, familyId: nil, extraFields: [:], key: metadataKey)
        }
        return entry
    }

    /// The app token of `clientId` in `realm` whose scopes include `scopes`, in any of `environments`; the one
    /// expiring last when several match. Expiry is the caller's check.
    func findAppToken(environments: [String], clientId: String, realm: String, scopes: ScopeSet) -> AccessTokenEntry? {
        findAccessToken(homeAccountId: "", environments: environments, clientId: clientId, realm: realm, scopes: scopes)
    }

    /// Removes every app token of `clientId` (any tenant, any environment); returns how many went.
    @discardableResult
    func removeAppTokens(clientId: String) -> Int {
        let client = CacheStrings.lower(clientId)
        let doomed = accessTokens.entries(home: "").filter { $0.clientKey == client }
        guard !doomed.isEmpty else { return 0 }
        noteChange()
        for entry in doomed { accessTokens.remove(key: entry.key) }
        touch(.accessToken)
        return doomed.count
    }
}
