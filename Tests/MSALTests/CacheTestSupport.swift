import Foundation
import MSAL
import MSALTesting
@testable import MSALCore
import MSALTestSupport

/// Values and helpers shared by the token-cache tests.
enum CacheFixtures {
    static let home = "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let environment = "login.microsoftonline.com"
    static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    static let realm = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let idToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJvaWQiOiIwMCJ9.c2lnbmF0dXJl"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// The authorization-code response of the wire-protocol reference, §2.4.
    static func signInResponse(
        home: String = home, target: String = "https://graph.microsoft.com/User.Read openid profile",
        accessToken: String = "AT-SECRET", refreshToken: String? = "RT-SECRET", familyId: String? = "1",
        now: Date = now, clientId: String = clientId, realm: String = realm
    ) -> CacheTokenResponse {
        CacheTokenResponse(
            homeAccountId: home, environment: environment, clientId: clientId, realm: realm, target: target,
            accessToken: accessToken, cachedAt: now, expiresOn: now + 3599, extendedExpiresOn: now + 7199,
            refreshOn: now + 1800, refreshToken: refreshToken, familyId: familyId, idToken: idToken,
            account: .init(localAccountId: "00000000-0000-0000-66f3-3332eca7ea81", username: "alice@contoso.example"),
            accountSource: "authorization_code")
    }

    static let envs = [environment]

    static func object(_ data: Data) -> [String: JSONValue]? { JSONValue.parseObject(data) }

    static func temporaryDirectory() -> URL {
        // Inside the test process's scratch root, removed when the process exits.
        ScratchDirectory.path("msal-cache-tests")
    }

    /// Makes every access token in the cache file at `file` expired a minute ago.
    static func expireAccessTokens(_ file: URL) throws {
        try MSALTokenCacheAging.expireAccessTokens(in: MSALFileTokenCacheStorage(fileURL: file))
    }
}

/// Facts about a file, through FileManager (without following a symbolic link).
enum FileFacts {
    private static func attributes(_ path: String) -> [FileAttributeKey: Any]? {
        try? FileManager.default.attributesOfItem(atPath: path)
    }

    /// The permission bits.
    static func permissions(_ path: String) -> Int? {
        (attributes(path)?[.posixPermissions] as? NSNumber)?.intValue
    }

    /// Whether `path` is a symbolic link.
    static func isSymbolicLink(_ path: String) -> Bool {
        (attributes(path)?[.type] as? FileAttributeType) == .typeSymbolicLink
    }

    /// The size in bytes.
    static func size(_ path: String) -> Int? {
        (attributes(path)?[.size] as? NSNumber)?.intValue
    }
}
