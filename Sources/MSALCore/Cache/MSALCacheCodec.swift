package import Foundation

/// Parsing and serialization of the unified cache document, for the package's benchmark.
package enum MSALCacheCodec {
    /// A parsed, indexed cache document.
    package struct Document: @unchecked Sendable {
        let document: TokenCacheDocument
    }

    /// Parses and indexes `data`.
    package static func parse(_ data: Data) throws -> Document {
        Document(document: try TokenCacheDocument.parse(data))
    }

    /// Serializes `document` as MSAL for Python writes it.
    package static func serialize(_ document: Document) -> Data {
        document.document.serialize()
    }
}

extension MSALCacheCodec {
    /// Adds what a sign-in of user number `user` writes (an account, an id token, an access token and a refresh
    /// token) to `document`, as the benchmark's model of one sign-in into a large cache.
    package static func addSignIn(_ document: Document, user: Int, now: Date = Date()) {
        let uid = String(format: "00000000-0000-0000-bench-%012d", user)
        let realm = "72f988bf-86f1-41af-91ab-2d7cd011db47"
        let response = CacheTokenResponse(
            homeAccountId: "\(uid).\(realm)", environment: "login.microsoftonline.com",
            clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", realm: realm,
            target: "https://graph.microsoft.com/User.Read openid profile", accessToken: String(repeating: "a", count: 1500),
            cachedAt: now, expiresOn: now + 3599, extendedExpiresOn: now + 7199, refreshOn: now + 1800,
            refreshToken: String(repeating: "r", count: 800), familyId: "1", idToken: String(repeating: "i", count: 900),
            account: .init(localAccountId: uid, username: "signin\(user)@bench.example"),
            accountSource: "authorization_code")
        _ = document.document.saveTokenResponse(response)
    }
}

extension MSALCacheCodec {
    /// Whether `data` is a token cache document: a JSON object MSAL can read, not blank. The file storage follows a
    /// symbolic link only to a file that passes this check, so that a link to any other file is never changed.
    package static func isTokenCacheDocument(_ data: Data) -> Bool {
        !isBlank(data) && (try? TokenCacheDocument.parse(data)) != nil
    }

    /// Whether `data` holds nothing but JSON whitespace: an empty cache, or a file another program has just
    /// truncated to rewrite it.
    package static func isBlank(_ data: Data) -> Bool {
        data.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
}
