import Foundation

extension TokenCacheDocument {
    /// Writes the tokens of one response, as MSAL for Python does (keys, fields, field order, and the
    /// order in which new sections appear), with MSAL for iOS/macOS's clean-up of overlapping access tokens:
    ///
    /// 1. the access token, after removing the account's other access tokens for the same environment,
    ///    realm, client, token type and client capabilities whose target shares a scope with the new one (OpenID
    ///    Connect scopes such as `openid` and `profile` alone do not count, see
    ///    ``ScopeSet/overlapsForReplacement(_:)``; capabilities: see `TokenCacheDocument+Capabilities.swift`);
    /// 2. the account, unless ``CacheTokenResponse/writesAccount`` is false or no account fields are given;
    /// 3. the ID token;
    /// 4. the refresh token: the one named by `replacingRefreshTokenKey` is rotated in place when still
    ///    cached, else a new entry is written under MSAL Python's key;
    /// 5. the app metadata (`family_id` from `foci`, JSON null without).
    ///
    /// Unknown fields of an entry replaced under the same key are kept.
    ///
    /// - Returns: the access token entry written, if any.
    @discardableResult
    func saveTokenResponse(_ response: CacheTokenResponse) -> AccessTokenEntry? {
        noteChange()
        let target = Self.pythonTarget(response.target)
        let now = CacheTimestamp(response.cachedAt)
        var written: AccessTokenEntry?
        if let secret = response.accessToken {
            written = saveAccessToken(response, target: target, secret: secret, now: now)
        }
        if response.writesAccount, let account = response.account {
            let realm = account.realm ?? response.realm
            let key = AccountEntry.pythonKey(homeAccountId: response.homeAccountId, environment: response.environment, realm: realm)
            touch(.account)
            accountEntries.insert(AccountEntry(
                homeAccountId: response.homeAccountId, environment: response.environment, realm: realm,
                localAccountId: account.localAccountId, username: account.username,
                authorityType: account.authorityType, name: account.name, clientInfo: account.clientInfo,
                accountSource: response.accountSource, extraFields: accountEntries[key]?.extraFields ?? [:], key: key))
            unreadableEntries[.account]?[key] = nil
        }
        if let idToken = response.idToken {
            let key = IdTokenEntry.pythonKey(
                homeAccountId: response.homeAccountId, environment: response.environment, clientId: response.clientId,
                realm: response.idTokenRealm ?? response.realm)
            touch(.idToken)
            idTokenEntries.insert(IdTokenEntry(
                homeAccountId: response.homeAccountId, environment: response.environment,
                realm: response.idTokenRealm ?? response.realm, clientId: response.clientId, secret: idToken,
                extraFields: idTokenEntries[key]?.extraFields ?? [:], key: key))
            unreadableEntries[.idToken]?[key] = nil
        }
        if let refreshToken = response.refreshToken {
            saveRefreshToken(response, refreshToken, target: target, now: now)
        }
        let metadataKey = AppMetadataEntry.pythonKey(environment: response.environment, clientId: response.clientId)
        var metadataExtra = appMetadataEntries[metadataKey]?.extraFields ?? [:]
        metadataExtra["family_id"] = response.familyId == nil ? .null : nil
        touch(.appMetadata)
        appMetadataEntries[metadataKey] = AppMetadataEntry(
            clientId: response.clientId, environment: response.environment, familyId: response.familyId,
            extraFields: metadataExtra, key: metadataKey)
        unreadableEntries[.appMetadata]?[metadataKey] = nil
        return written
    }

    /// MSAL Python's `target`: the scopes sorted by code point, space-joined.
    static func pythonTarget(_ granted: String) -> String {
        granted.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
            .sorted(by: CacheStrings.codePointLess).joined(separator: " ")
    }

    /// Stores the access token of `r` under MSAL Python's key (app tokens with `home_account_id` null), replacing
    /// the overlapping tokens of its bucket and keeping the unknown fields of an entry under the same key.
    func saveAccessToken(_ r: CacheTokenResponse, target: String, secret: String, now: CacheTimestamp,
                         homeAccountIdIsNull: Bool = false) -> AccessTokenEntry
    {
        let scopes = scopeSet(forTarget: target)
        let key = Self.accessTokenKey(AccessTokenEntry.pythonKey(
            homeAccountId: r.homeAccountId, environment: r.environment, clientId: r.clientId, realm: r.realm, target: target),
            capabilities: r.clientCapabilities)
        let environmentKey = CacheStrings.lower(r.environment)
        let tokenType = CacheStrings.lower(r.tokenType)
        let bucket = accessTokens.bucket(
            home: CacheStrings.lower(r.homeAccountId), client: CacheStrings.lower(r.clientId), realm: CacheStrings.lower(r.realm))
        var extra = bucket.first { $0.key == key }?.extraFields ?? [:]
        if let hash = r.userAssertionHash { extra[TokenCacheDocument.userAssertionHashField] = .string(hash) }
        extra[Self.clientCapabilitiesField] = r.clientCapabilities.map { .string($0) }
        for old in bucket where old.environmentKey == environmentKey
            && CacheStrings.lower(old.tokenType ?? "bearer") == tokenType && old.scopes.overlapsForReplacement(scopes)
            && Self.matchesCapabilities(old, r.clientCapabilities)
        {
            accessTokens.remove(key: old.key)
        }
        let entry = AccessTokenEntry(
            homeAccountId: r.homeAccountId, environment: r.environment, clientId: r.clientId, realm: r.realm,
            target: target, secret: secret, tokenType: r.tokenType, cachedAt: now,
            expiresOn: CacheTimestamp(r.expiresOn), extendedExpiresOn: CacheTimestamp(r.extendedExpiresOn ?? r.expiresOn),
            refreshOn: r.refreshOn.map(CacheTimestamp.init), scopes: scopes, extraFields: extra, key: key,
            homeAccountIdIsNull: homeAccountIdIsNull)
        touch(.accessToken)
        accessTokens.insert(entry)
        unreadableEntries[.accessToken]?[key] = nil
        return entry
    }

    private func saveRefreshToken(_ r: CacheTokenResponse, _ secret: String, target: String, now: CacheTimestamp) {
        touch(.refreshToken)
        if let usedKey = r.replacingRefreshTokenKey, let used = refreshTokenEntries[usedKey] {
            refreshTokenEntries.insert(used.rotated(secret: secret, at: now))
            return
        }
        let owner = r.refreshTokenClientId ?? r.clientId
        let key = RefreshTokenEntry.pythonKey(
            homeAccountId: r.homeAccountId, environment: r.environment, clientId: owner, target: target)
        var extra = refreshTokenEntries[key]?.extraFields ?? [:]
        if let hash = r.userAssertionHash { extra[TokenCacheDocument.userAssertionHashField] = .string(hash) }
        refreshTokenEntries.insert(RefreshTokenEntry(
            homeAccountId: r.homeAccountId, environment: r.environment, clientId: owner, target: target,
            secret: secret, lastModificationTime: now, familyId: r.familyId, extraFields: extra, key: key))
        unreadableEntries[.refreshToken]?[key] = nil
    }

    /// Removes an account from `environments` as MSAL Python's `remove_account` does: its refresh tokens
    /// issued to `clientId` or (when `familyId` is given) to the same family, all its access tokens (any
    /// client), its ID tokens and its account entries. App metadata stays. Unreadable entries of the
    /// account in those sections go too.
    func removeAccount(homeAccountId: String, environments: [String], clientId: String, familyId: String?,
                       everyClient: Bool = false) {
        noteChange()
        let home = CacheStrings.lower(homeAccountId)
        let client = CacheStrings.lower(clientId)
        for rt in refreshTokenEntries.entries(homeKey: home) where Self.environment(rt.environmentKey, in: environments) {
            if everyClient || rt.clientKey == client || (familyId != nil && rt.familyId == familyId) {
                refreshTokenEntries.remove(key: rt.key)
            }
        }
        for at in accessTokens.entries(home: home) where Self.environment(at.environmentKey, in: environments) {
            accessTokens.remove(key: at.key)
        }
        for idToken in idTokenEntries.entries(homeKey: home) where Self.environment(idToken.environmentKey, in: environments) {
            idTokenEntries.remove(key: idToken.key)
        }
        for account in accountEntries.entries(homeKey: home) where Self.environment(account.environmentKey, in: environments) {
            accountEntries.remove(key: account.key)
        }
        removePoPAccessTokens(homeAccountId: homeAccountId)
        for section in [CacheSection.accessToken, .refreshToken, .idToken, .account] {
            guard let entries = unreadableEntries[section] else { continue }
            unreadableEntries[section] = entries.filter { _, value in
                guard case .string(let owner)? = value.objectValue?["home_account_id"] else { return true }
                return CacheStrings.lower(owner) != home
            }
        }
    }

    /// Removes every account and every user token, of every application and cloud (``MSALSignoutParameters/wipeCacheForAllAccounts``:
    /// MSAL for iOS/macOS deletes every item of the keychain group, `MSIDDefaultTokenCacheAccessor.m:831-861`).
    func removeAllAccounts() {
        noteChange()
        for entry in refreshTokenEntries.all.map({ $0 }) { refreshTokenEntries.remove(key: entry.key) }
        for entry in accessTokens.all { accessTokens.remove(key: entry.key) }
        for entry in idTokenEntries.all.map({ $0 }) { idTokenEntries.remove(key: entry.key) }
        for entry in accountEntries.all.map({ $0 }) { accountEntries.remove(key: entry.key) }
        unknownSections[Self.popAccessTokenSection] = nil
        for section in [CacheSection.accessToken, .refreshToken, .idToken, .account] { unreadableEntries[section] = nil }
    }

    /// Removes the access token stored under `key`.
    @discardableResult
    func removeAccessToken(key: String) -> AccessTokenEntry? {
        guard let removed = accessTokens.remove(key: key) else { return nil }
        noteChange()
        return removed
    }
}
