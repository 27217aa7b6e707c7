import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Token cache document: lookups and writes")
struct CacheLookupTests {
    typealias F = CacheFixtures

    private func find(_ document: TokenCacheDocument, _ scopes: [String], environments: [String] = F.envs,
                      home: String = F.home, realm: String = F.realm) -> AccessTokenEntry? {
        document.findAccessToken(homeAccountId: home, environments: environments, clientId: F.clientId,
                                 realm: realm, scopes: ScopeSet(scopes))
    }

    @Test func scopeSetsIgnoreCase() {
        let target = ScopeSet(target: "https://graph.microsoft.com/User.Read openid profile")
        #expect(ScopeSet(["https://graph.microsoft.com/user.read"]).isSubset(of: target))
        #expect(ScopeSet(["OPENID", "Profile"]).isSubset(of: target))
        #expect(!ScopeSet(["Mail.Read"]).isSubset(of: target))
        #expect(ScopeSet([String]()).isSubset(of: target))
        #expect(ScopeSet(["a", "B"]).intersects(ScopeSet(["b", "c"])))
        #expect(!ScopeSet(["a"]).intersects(ScopeSet(["b"])))
        #expect(ScopeSet(["User.Read", "user.read"]).scopes == ["User.Read"])
    }

    @Test func findsByCaseInsensitiveSubsetOfAWiderTarget() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(F.signInResponse())
        #expect(find(document, ["https://graph.microsoft.com/user.read"])?.secret == "AT-SECRET")
        #expect(find(document, ["https://graph.microsoft.com/User.Read", "openid", "profile"]) != nil)
        #expect(find(document, ["https://graph.microsoft.com/Mail.Read"]) == nil)
        // Aliases match case-insensitively; other environments, accounts and realms do not.
        #expect(find(document, ["openid"], environments: ["login.windows.net", "LOGIN.microsoftonline.COM"]) != nil)
        #expect(find(document, ["openid"], environments: ["login.windows.net"]) == nil)
        #expect(find(document, ["openid"], home: F.home.uppercased()) != nil)
        #expect(find(document, ["openid"], realm: "common") == nil)
    }

    @Test func prefersTheTokenExpiringLastAndSkipsNonBearer() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(F.signInResponse(target: "api://a/read"))
        var later = F.signInResponse(target: "api://a/read api://a/write", accessToken: "LATER", now: F.now + 100)
        later.tokenType = "Bearer"
        document.saveTokenResponse(later)
        #expect(find(document, ["api://a/read"])?.secret == "LATER")
        var pop = F.signInResponse(target: "api://b/read", accessToken: "POP")
        pop.tokenType = "pop"
        document.saveTokenResponse(pop)
        #expect(find(document, ["api://b/read"]) == nil)
    }

    @Test func newTokenReplacesTokensWithIntersectingTargets() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(F.signInResponse(target: "api://a/read api://a/write", accessToken: "OLD-A"))
        document.saveTokenResponse(F.signInResponse(target: "api://b/read openid profile", accessToken: "B"))
        document.saveTokenResponse(F.signInResponse(target: "API://A/Write api://a/admin openid", accessToken: "NEW-A"))
        #expect(document.accessTokenCount == 2)
        #expect(find(document, ["api://a/read"]) == nil)
        #expect(find(document, ["api://a/write"])?.secret == "NEW-A")
        // Sharing only openid/profile does not replace another resource's token.
        #expect(find(document, ["api://b/read"])?.secret == "B")
        // Other accounts and realms are untouched.
        document.saveTokenResponse(F.signInResponse(home: "other.tenant", target: "api://a/write", accessToken: "OTHER"))
        document.saveTokenResponse(F.signInResponse(target: "api://a/write", accessToken: "T2", realm: "tenant-2"))
        #expect(find(document, ["api://a/write"])?.secret == "NEW-A")
        #expect(document.accessTokenCount == 4)
    }

    @Test func removeAccessTokenByKey() throws {
        let document = TokenCacheDocument()
        let at = try #require(document.saveTokenResponse(F.signInResponse()))
        #expect(document.removeAccessToken(key: at.key) != nil)
        #expect(document.removeAccessToken(key: at.key) == nil)
        #expect(find(document, ["openid"]) == nil)
        #expect(document.accessTokenCount == 0)
    }

    @Test func refreshRotatesTheUsedRefreshTokenInPlace() throws {
        let document = try TokenCacheDocument.parse(Data(CacheDotNetFixture.document.utf8))
        let family = document.familyRefreshTokens(homeAccountId: CacheDotNetFixture.home, environments: F.envs, familyId: "1")
        let used = try #require(family.first)
        #expect(used.key.hasSuffix("-refreshtoken-1--"))
        var refresh = CacheTokenResponse(
            homeAccountId: CacheDotNetFixture.home, environment: F.environment, clientId: CacheDotNetFixture.clientId,
            realm: CacheDotNetFixture.realm, target: "User.Read", accessToken: "AT-NEW", cachedAt: F.now,
            expiresOn: F.now + 3600, refreshToken: "RT-ROTATED", familyId: "1")
        refresh.replacingRefreshTokenKey = used.key
        refresh.writesAccount = false
        document.saveTokenResponse(refresh)
        let after = try #require(document.refreshTokenEntries[used.key])
        #expect(after.secret == "RT-ROTATED")
        #expect(after.lastModificationTimeValue?.text == "1700000000")
        #expect(after.clientId == used.clientId && after.familyId == "1" && after.extraFields == used.extraFields)
        #expect(document.refreshTokenEntries.count == family.count + 1)  // the app's own RT is untouched
    }

    @Test func familyRefreshTokensNewestFirst() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(F.signInResponse(refreshToken: "RT-APP1", now: F.now))
        document.saveTokenResponse(F.signInResponse(refreshToken: "RT-APP2", now: F.now + 50, clientId: "app-2"))
        document.saveTokenResponse(F.signInResponse(refreshToken: "RT-APP3", familyId: nil, now: F.now + 90, clientId: "app-3"))
        let family = document.familyRefreshTokens(homeAccountId: F.home, environments: F.envs, familyId: "1")
        #expect(family.map(\.secret) == ["RT-APP2", "RT-APP1"])
        let own = document.refreshTokens(homeAccountId: F.home, environments: F.envs, clientId: "APP-3")
        #expect(own.map(\.secret) == ["RT-APP3"])
        #expect(document.appMetadata(environments: F.envs, clientId: "app-2")?.familyId == "1")
        #expect(document.appMetadata(environments: F.envs, clientId: "app-3")?.familyId == nil)
    }

    @Test func removeAccountDeletesItsTokensButKeepsAppMetadata() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(F.signInResponse())
        document.saveTokenResponse(F.signInResponse(target: "api://x/read", clientId: "family-app"))
        document.saveTokenResponse(F.signInResponse(familyId: nil, clientId: "unrelated-app"))
        document.saveTokenResponse(F.signInResponse(home: "someone.else"))
        document.removeAccount(homeAccountId: F.home, environments: F.envs, clientId: F.clientId, familyId: "1")

        #expect(document.accounts(homeAccountId: F.home).isEmpty)
        #expect(document.idTokens(homeAccountId: F.home, environments: F.envs, clientId: F.clientId).isEmpty)
        #expect(find(document, ["openid"]) == nil)
        #expect(document.accessTokens.entries(home: F.home).isEmpty)  // every client's ATs
        #expect(document.familyRefreshTokens(homeAccountId: F.home, environments: F.envs, familyId: "1").isEmpty)
        // An RT of a client outside the family stays, as in MSAL Python.
        #expect(document.refreshTokens(homeAccountId: F.home, environments: F.envs, clientId: "unrelated-app").count == 1)
        #expect(document.accounts(homeAccountId: "someone.else").count == 1)
        #expect(document.appMetadata(environments: F.envs, clientId: F.clientId) != nil)
        #expect(document.accounts(environments: nil).count == 1)
        #expect(document.accounts(environments: ["login.windows.net"]).isEmpty)
    }

    @Test func idTokenLookupByRealm() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(F.signInResponse())
        var guest = F.signInResponse(realm: "guest-tenant")
        guest.idToken = "GUEST-IDT"
        document.saveTokenResponse(guest)
        #expect(document.idToken(homeAccountId: F.home, environments: F.envs, realm: "GUEST-tenant", clientId: F.clientId)?
            .secret == "GUEST-IDT")
        #expect(document.idTokens(homeAccountId: F.home, environments: F.envs, clientId: F.clientId).count == 2)
        #expect(document.accounts(homeAccountId: F.home).count == 2)
    }
}

@Suite("Token cache document at scale")
struct CacheScaleTests {
    @Test func thousandTokensRoundTripAndStayFindable() throws {
        let document = TokenCacheDocument()
        for account in 0..<100 {
            for resource in 0..<10 {
                document.saveTokenResponse(CacheFixtures.signInResponse(
                    home: "uid-\(account).tid", target: "api://r\(resource)/.default", accessToken: "AT-\(account)-\(resource)"))
            }
        }
        #expect(document.accessTokenCount == 1000)
        let text = document.serialize()
        let reread = try TokenCacheDocument.parse(text)
        #expect(reread.serialize() == text)
        #expect(reread.accessTokenCount == 1000)
        let hit = reread.findAccessToken(
            homeAccountId: "UID-42.TID", environments: CacheFixtures.envs, clientId: CacheFixtures.clientId,
            realm: CacheFixtures.realm, scopes: ScopeSet(["API://R7/.default"]))
        #expect(hit?.secret == "AT-42-7")
    }
}
