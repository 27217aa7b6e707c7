package import Foundation

extension MSALCacheCodec {
    /// An access token found in another application's cache file.
    package struct FoundAccessToken: Sendable {
        package let secret: String
        package let expiresOn: Date
    }

    /// The access token of `clientId` in `realm` whose scopes include `scopes`, valid for at least
    /// `minimumLifetime` after `now`, in a unified cache document another application wrote (read only; nothing of
    /// it is kept): a user's token when `username` is given (the account of that user name, in any cloud), else an
    /// application's token. The one expiring last when several match.
    ///
    /// - Throws: ``MSALErrorInfo`` when `data` is not a token cache document.
    package static func accessToken(in data: Data, clientId: String, realm: String, username: String?, scopes: [String],
                                    now: Date, minimumLifetime: TimeInterval) throws -> FoundAccessToken? {
        let document = try TokenCacheDocument.parse(data)
        let wanted = ScopeSet(scopes)
        let client = CacheStrings.lower(clientId)
        let realmKey = CacheStrings.lower(realm)
        let homes: [String]
        if let username {
            homes = document.accountEntries.all
                .filter { $0.username.caseInsensitiveCompare(username) == .orderedSame }
                .map { $0.homeKey }
        } else {
            homes = [""]
        }
        let deadline = CacheTimestamp.saturatedSeconds((now.timeIntervalSince1970 + minimumLifetime).rounded(.up))
        var best: AccessTokenEntry?
        for home in Set(homes) {
            for entry in document.accessTokens.bucket(home: home, client: client, realm: realmKey)
            where entry.isBearer && entry.expiresOnValue.seconds > deadline && wanted.isSubset(of: entry.scopes) {
                if best.map({ entry.expiresOnValue.seconds > $0.expiresOnValue.seconds }) ?? true { best = entry }
            }
        }
        return best.map { FoundAccessToken(secret: $0.secret, expiresOn: $0.expiresOn) }
    }
}
