import Foundation
import Testing
@testable import MSALCore

/// The keychain item layout of MSAL for iOS/macOS (one item per cache entry), on the worked examples of its cache
/// schema tests: entries map to the same attributes, and items MSAL for iOS/macOS wrote map back to a unified cache
/// document this package (and every SDK) reads.
@Suite("Keychain item layout")
struct KeychainItemLayoutTests {
    static let client = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let home = "9f4880d8-80ba-4c40-97bc-f7a23c703084.\(tenant)"
    static let environment = "login.microsoftonline.com"
    static var account: String { "\(home)-\(environment)" }

    static func entry(_ fields: [String: String]) -> [String: JSONValue] { fields.mapValues { .string($0) } }

    static let accessToken = entry([
        "credential_type": "AccessToken", "secret": "at", "home_account_id": home, "environment": environment,
        "client_id": client, "realm": tenant, "target": "Calendars.Read openid profile Tasks.Read User.Read email",
        "cached_at": "1700000000", "expires_on": "1700003600", "extended_expires_on": "1700003600",
    ])
    static let idToken = entry([
        "credential_type": "IdToken", "secret": "a.b.c", "home_account_id": home, "environment": environment,
        "client_id": client, "realm": tenant,
    ])
    static let refreshToken = entry([
        "credential_type": "RefreshToken", "secret": "rt", "home_account_id": home, "environment": environment,
        "client_id": client,
    ])
    static let familyRefreshToken = entry([
        "credential_type": "RefreshToken", "secret": "frt", "home_account_id": home, "environment": environment,
        "client_id": client, "family_id": "1",
    ])
    static let accountEntry = entry([
        "home_account_id": home, "environment": environment, "realm": tenant, "local_account_id": "9f4880d8",
        "username": "idlab@msidlab4.onmicrosoft.com", "authority_type": "MSSTS",
    ])
    static let appMetadata = entry(["client_id": client, "environment": environment, "family_id": "1"])

    @Test func entriesHaveTheAttributesMSALForAppleWrites() throws {
        let at = try #require(KeychainItemLayout.items(section: "AccessToken", entry: Self.accessToken).first)
        #expect(at.account == Self.account)
        #expect(at.service == "accesstoken-\(Self.client)-\(Self.tenant)-calendars.read openid profile tasks.read user.read email")
        #expect(at.generic == "accesstoken-\(Self.client)-\(Self.tenant)")
        #expect(at.type == 2001)
        #expect(at.value == Self.accessToken)

        let id = try #require(KeychainItemLayout.items(section: "IdToken", entry: Self.idToken).first)
        #expect(id.service == "idtoken-\(Self.client)-\(Self.tenant)-" && id.generic == "idtoken-\(Self.client)-\(Self.tenant)")
        #expect(id.type == 2003)

        let rt = KeychainItemLayout.items(section: "RefreshToken", entry: Self.refreshToken)
        #expect(rt.map(\.service) == ["refreshtoken-\(Self.client)--"] && rt.map(\.generic) == ["refreshtoken-\(Self.client)-"])
        #expect(rt.first?.type == 2002)

        // A family refresh token: keyed by the family id, and by the client id, as MSAL for iOS/macOS saves it.
        let family = KeychainItemLayout.items(section: "RefreshToken", entry: Self.familyRefreshToken)
        #expect(family.map(\.service) == ["refreshtoken-1--", "refreshtoken-\(Self.client)--"])
        #expect(family.map(\.generic) == ["refreshtoken-1-", "refreshtoken-\(Self.client)-"])

        let account = try #require(KeychainItemLayout.items(section: "Account", entry: Self.accountEntry).first)
        #expect(account.account == Self.account && account.service == Self.tenant)
        #expect(account.generic == "idlab@msidlab4.onmicrosoft.com" && account.type == 1003)

        let metadata = try #require(KeychainItemLayout.items(section: "AppMetadata", entry: Self.appMetadata).first)
        #expect(metadata.account == Self.environment && metadata.service == "appmetadata-\(Self.client)")
        #expect(metadata.generic == "1" && metadata.type == 3001)
    }

    @Test func itemsMSALForAppleWroteAreReadAsOneUnifiedCache() throws {
        // Items as MSAL for iOS/macOS writes them, plus what is no cache entry (account metadata, the wipe marker).
        var items = [
            KeychainCacheItem(account: Self.account, service: "accesstoken-\(Self.client)-\(Self.tenant)-user.read",
                              generic: "accesstoken-\(Self.client)-\(Self.tenant)", type: 2001, value: Self.accessToken),
            KeychainCacheItem(account: Self.account, service: "idtoken-\(Self.client)-\(Self.tenant)-",
                              generic: "idtoken-\(Self.client)-\(Self.tenant)", type: 2003, value: Self.idToken),
            KeychainCacheItem(account: Self.account, service: "\(Self.tenant)", generic: "idlab@msidlab4.onmicrosoft.com",
                              type: 1003, value: Self.accountEntry),
            KeychainCacheItem(account: Self.environment, service: "appmetadata-\(Self.client)", generic: "1", type: 3001,
                              value: Self.appMetadata),
            KeychainCacheItem(account: "authority_map", service: Self.client, generic: nil, type: 5001, value: [:]),
        ]
        items += KeychainItemLayout.items(section: "RefreshToken", entry: Self.familyRefreshToken)
        let data = KeychainItemLayout.document(from: items)
        let document = try TokenCacheDocument.parse(data)
        #expect(document.parseWarnings.isEmpty)
        #expect(document.accessTokens.all.map(\.secret) == ["at"])
        #expect(document.accountEntries.all.map(\.username) == ["idlab@msidlab4.onmicrosoft.com"])
        // The two copies of the family refresh token are one entry of the unified cache.
        #expect(document.refreshTokenEntries.all.map(\.secret) == ["frt"])
        #expect(document.idTokenEntries.all.count == 1)
        #expect(document.appMetadataEntries.count == 1)

        // And back: the document's entries give the same attributes again.
        let again = Set(KeychainItemLayout.items(fromDocument: data).map { "\($0.account)|\($0.service)|\($0.type)" })
        let original = Set(items.filter { $0.type != 5001 }.map { item -> String in
            // MSAL for iOS/macOS keeps the server's target; the document's is the entry's own (all that a lookup uses).
            item.type == 2001 ? "\(item.account)|\(KeychainItemLayout.items(section: "AccessToken", entry: item.value)[0].service)|2001"
                : "\(item.account)|\(item.service)|\(item.type)"
        })
        #expect(again == original)
    }

    @Test func entriesWithoutTheirTypeHaveNoItem() {
        #expect(KeychainItemLayout.items(section: "AccessToken", entry: ["secret": .string("x")]).isEmpty)
        #expect(KeychainItemLayout.items(section: "Unknown", entry: Self.accessToken).isEmpty)
        #expect(KeychainItemLayout.entry(of: KeychainCacheItem(account: "TokenWipe", service: "", generic: "Microsoft.ADAL.WipeAll.1",
                                                               type: 0, value: [:])) == nil)
    }
}
