import Foundation

/// What the cache stores from one successful token response, already interpreted by the protocol layer.
///
/// ``TokenCacheDocument/saveTokenResponse(_:)`` writes it as MSAL for Python does: the access token,
/// the ID token, the refresh token, the app metadata and (unless ``writesAccount`` is false) the account.
struct CacheTokenResponse: Sendable {
    /// The account fields written to the `Account` entry.
    struct AccountInfo: Sendable {
        /// `local_account_id`: the `oid` (else `sub`) in this tenant.
        var localAccountId: String
        /// `username`: `preferred_username` or `upn`, "" when the token has none.
        var username: String
        /// `authority_type`: "MSSTS", or "ADFS".
        var authorityType: String = "MSSTS"
        /// `name`, written only when set (MSAL Python does not write it).
        var name: String?
        /// `client_info` (raw base64url), written only when set (MSAL Python does not write it).
        var clientInfo: String?
        /// The realm of the account entry; defaults to the response's ``CacheTokenResponse/realm``.
        var realm: String?

        init(localAccountId: String, username: String, authorityType: String = "MSSTS", name: String? = nil,
             clientInfo: String? = nil, realm: String? = nil) {
            self.localAccountId = localAccountId
            self.username = username
            self.authorityType = authorityType
            self.name = name
            self.clientInfo = clientInfo
            self.realm = realm
        }
    }

    /// `home_account_id`: `uid.utid` from `client_info`.
    var homeAccountId: String
    /// The cache environment (host of the authority, the cache alias).
    var environment: String
    var clientId: String
    /// The tenant of the access token (`realm`).
    var realm: String
    /// The scopes the server granted (its `scope`), space-separated. Written sorted by code point, as
    /// MSAL Python writes `target`.
    var target: String

    /// The access token; nil when the response had none.
    var accessToken: String?
    var tokenType: String = "Bearer"
    /// `cached_at`, and the time used for the refresh token's `last_modification_time`.
    var cachedAt: Date
    var expiresOn: Date
    /// Defaults to ``expiresOn`` when the server sent no `ext_expires_in`.
    var extendedExpiresOn: Date?
    /// From `refresh_in`, when the server sent one.
    var refreshOn: Date?

    /// The refresh token; nil when the response had none.
    var refreshToken: String?
    /// The response's `foci` (family id), e.g. "1".
    var familyId: String?
    /// The client id the refresh token is kept under when it is not ``clientId`` (a nested app's hub).
    var refreshTokenClientId: String?
    /// The key of the refresh token used for this request (silent refresh). When it is still cached, the
    /// new refresh token rotates it in place: new secret and `last_modification_time`, same key and fields.
    var replacingRefreshTokenKey: String?

    /// The raw ID token (JWT), if the response had one.
    var idToken: String?
    /// The realm of the ID token entry; defaults to ``realm``.
    var idTokenRealm: String?

    /// The account fields; with nil (or ``writesAccount`` false) no `Account` entry is written.
    var account: AccountInfo?
    /// False for a silent refresh: MSAL Python does not rewrite the account then.
    var writesAccount: Bool = true
    /// `account_source`: the grant that created the account (`authorization_code`, device code, …).
    var accountSource: String?
    /// On-behalf-of: `user_assertion_hash` (as MSAL.NET stores it) on the access and refresh tokens, so that they
    /// are found again only for the same incoming assertion.
    var userAssertionHash: String?
    /// The client capabilities the access token was requested with, in stored form
    /// (``TokenCacheDocument/capabilitiesMarker(_:)``); nil when none.
    var clientCapabilities: String?

    init(
        homeAccountId: String, environment: String, clientId: String, realm: String, target: String,
        accessToken: String?, tokenType: String = "Bearer", cachedAt: Date, expiresOn: Date,
        extendedExpiresOn: Date? = nil, refreshOn: Date? = nil, refreshToken: String? = nil, familyId: String? = nil,
        replacingRefreshTokenKey: String? = nil, idToken: String? = nil, idTokenRealm: String? = nil,
        account: AccountInfo? = nil, writesAccount: Bool = true, accountSource: String? = nil
    ) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.clientId = clientId
        self.realm = realm
        self.target = target
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.cachedAt = cachedAt
        self.expiresOn = expiresOn
        self.extendedExpiresOn = extendedExpiresOn
        self.refreshOn = refreshOn
        self.refreshToken = refreshToken
        self.familyId = familyId
        self.replacingRefreshTokenKey = replacingRefreshTokenKey
        self.idToken = idToken
        self.idTokenRealm = idTokenRealm
        self.account = account
        self.writesAccount = writesAccount
        self.accountSource = accountSource
    }
}
