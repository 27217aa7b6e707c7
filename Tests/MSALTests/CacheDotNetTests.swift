import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// A cache in the shape MSAL.NET writes: case-insensitively sorted target, `…-refreshtoken-1--` family RT,
/// extra fields on every entry, integer/decimal date variants.
enum CacheDotNetFixture {
    static let home = "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let realm = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let document = """
    {
      "AccessToken": {
        "\(home)-login.microsoftonline.com-accesstoken-\(clientId)-\(realm)-calendars.read email openid profile tasks.read user.read": {
          "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "client_info": "eyJ1aWQiOiI5ZiJ9",
          "client_id": "\(clientId)", "secret": "NET-AT", "credential_type": "AccessToken", "realm": "\(realm)",
          "target": "Calendars.Read email openid profile Tasks.Read User.Read", "cached_at": 1700000000,
          "expires_on": "1700003600.0", "extended_expires_on": "1700007200", "ext_expires_on": "1700007200"
        }
      },
      "RefreshToken": {
        "\(home)-login.microsoftonline.com-refreshtoken-1--": {
          "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "client_info": "eyJ1aWQiOiI5ZiJ9",
          "client_id": "\(clientId)", "secret": "NET-FRT", "credential_type": "refreshtoken", "family_id": "1"
        },
        "\(home)-login.microsoftonline.com-refreshtoken-\(clientId)--": {
          "home_account_id": "\(home)", "environment": "login.microsoftonline.com",
          "client_id": "\(clientId)", "secret": "NET-RT", "credential_type": "RefreshToken",
          "last_modification_time": "1699999999.123"
        },
        "broken": "not an object",
        "missing-secret": { "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "client_id": "x" }
      },
      "IdToken": {
        "\(home)-login.microsoftonline.com-idtoken-\(clientId)-\(realm)-": {
          "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "client_id": "\(clientId)",
          "secret": "NET-IDT", "credential_type": "IdToken", "realm": "\(realm)", "client_info": "eyJ1aWQiOiI5ZiJ9"
        }
      },
      "Account": {
        "\(home)-login.microsoftonline.com-\(realm)": {
          "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "realm": "\(realm)",
          "local_account_id": "9f4880d8-80ba-4c40-97bc-f7a23c703084", "username": "idlab@msidlab4.onmicrosoft.com",
          "authority_type": "MSSTS", "name": "Cloud IDLAB Basic User", "client_info": "eyJ1aWQiOiI5ZiJ9",
          "given_name": "Cloud"
        }
      },
      "AppMetadata": {
        "appmetadata-login.microsoftonline.com-\(clientId)": {
          "environment": "login.microsoftonline.com", "family_id": "1", "client_id": "\(clientId)"
        }
      },
      "AccountMetadata": { "future": { "x": [1, 2.5, "\\u00e9\\ud83d\\ude00"] } }
    }
    """
}

@Suite("Token cache document: caches written by other SDKs")
struct CacheDotNetTests {
    typealias N = CacheDotNetFixture

    @Test func readsADotNetShapedCache() throws {
        let document = try TokenCacheDocument.parse(Data(N.document.utf8))
        let at = try #require(document.findAccessToken(
            homeAccountId: N.home, environments: ["login.microsoftonline.com"], clientId: N.clientId, realm: N.realm,
            scopes: ScopeSet(["user.read", "TASKS.READ"])))
        #expect(at.secret == "NET-AT")
        #expect(at.expiresOnValue.seconds == 1_700_003_600 && at.cachedAtValue?.seconds == 1_700_000_000)
        #expect(at.extraFields["client_info"] == .string("eyJ1aWQiOiI5ZiJ9"))
        let family = document.familyRefreshTokens(homeAccountId: N.home, environments: ["login.microsoftonline.com"], familyId: "1")
        #expect(family.map(\.secret) == ["NET-FRT"])
        #expect(document.refreshTokens(homeAccountId: N.home, environments: ["login.microsoftonline.com"], clientId: N.clientId)
            .map(\.secret) == ["NET-RT", "NET-FRT"])
        let account = try #require(document.accounts(homeAccountId: N.home).first)
        #expect(account.name == "Cloud IDLAB Basic User" && account.extraFields["given_name"] == .string("Cloud"))
        #expect(document.appMetadata(environments: ["login.microsoftonline.com"], clientId: N.clientId)?.familyId == "1")
        #expect(document.parseWarnings.count == 1)
    }

    @Test func writesItBackWithoutLosingAnything() throws {
        let original = try #require(CacheFixtures.object(Data(N.document.utf8)))
        let document = try TokenCacheDocument.parse(Data(N.document.utf8))
        let rewritten = try #require(CacheFixtures.object(document.serialize()))
        #expect(rewritten["AccountMetadata"] == original["AccountMetadata"])
        // Unreadable entries are kept verbatim.
        #expect(rewritten["RefreshToken"]?.objectValue?["broken"] == .string("not an object"))
        #expect(rewritten["RefreshToken"]?.objectValue?["missing-secret"] == original["RefreshToken"]?.objectValue?["missing-secret"])
        // Readable entries keep every field; a JSON-number date is written as a string.
        for section in ["IdToken", "Account", "AppMetadata"] { #expect(rewritten[section] == original[section]) }
        let atKey = try #require(original["AccessToken"]?.objectValue?.keys.first)
        var expectedAT = try #require(original["AccessToken"]?.objectValue?[atKey]?.objectValue)
        expectedAT["cached_at"] = .string("1700000000")
        #expect(rewritten["AccessToken"]?.objectValue?[atKey] == .object(expectedAT))
    }
}
