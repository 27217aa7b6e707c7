#if canImport(UIKit)
import Foundation
import MSAL
import MSALCore
import MSALTesting
import Security
import Testing

/// ADAL's items in the keychain group on iOS, read as MSAL for iOS/macOS reads them (its legacy accessor beside the
/// unified cache): a user ADAL signed in is found by user name and gets a silent token without signing in, the
/// ADAL item is left as it is, and with ``MSALCacheConfig/writesLegacyADALRefreshTokens`` a sign-in is written back
/// as an ADAL item.
extension AppleSurfaceTests {
    /// Adds an item as ADAL for iOS adds one (`MSIDKeychainTokenCache` with a legacy key): generic password in the
    /// shared group, account base64url(user id), ADAL's service, generic `MSOpenTech.ADAL.1`, no type, the archive.
    static func addAsADAL(_ item: LegacyTokenCacheItem, userId: String) {
        let key = LegacyTokenCacheKey(authority: item.authority!, resource: item.resource, clientId: item.clientId!, userId: userId)
        var attributes: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccessGroup as String: AppleFixture.accessGroup,
            kSecAttrAccount as String: key.account(forIOS: true),
            kSecAttrService as String: key.service,
            kSecAttrGeneric as String: Data("MSOpenTech.ADAL.1".utf8),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            kSecValueData as String: item.encode(forIOS: true),
        ]
        if MSALKeychainTokenCacheStorage.dataProtectionByDefault {
            attributes[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue
        }
        #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
    }

    /// A sign-in whose refresh token then lives only in an ADAL item: its refresh token and the provider's user.
    @MainActor
    static func refreshTokenOnlyInADALsItem(
        writes: Bool = false
    ) async throws -> (provider: MSALScriptedIdentityProvider, refreshToken: String) {
        let (provider, shown) = AppleFixture.interactive()
        let app = try AppleFixture.app(provider)
        _ = try await app.acquireToken(with: MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller)))
        let refreshItem = try #require(AppleFixture.storedEntries.first { ($0.service ?? "").hasPrefix("refreshtoken-") })
        let entry = try JSONSerialization.jsonObject(with: try #require(refreshItem.data)) as? [String: Any]
        let refreshToken = try #require(entry?["secret"] as? String)
        AppleFixture.resetKeychain()
        let user = provider.user
        let header = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))
        let claims = try JSONSerialization.data(withJSONObject: ["oid": user.oid, "tid": user.tenant, "upn": user.username,
                                                                 "ver": "1.0"], options: [.sortedKeys])
        let item = LegacyTokenCacheItem(authority: "https://\(provider.host)/common", clientId: provider.clientId, resource: nil,
                                        refreshToken: refreshToken, idToken: "\(header).\(Base64URL.encode(claims)).")
        addAsADAL(item, userId: user.username)
        return (provider, refreshToken)
    }

    @Test("A user ADAL signed in (an ADAL item of the keychain group) gets a silent token without signing in")
    @MainActor
    func readsADALItems() async throws {
        let (provider, _) = try await Self.refreshTokenOnlyInADALsItem()
        let before = provider.tokenRequests.count
        let app = try AppleFixture.app(provider)
        let account = try app.account(forUsername: provider.user.username)
        #expect(account.identifier == AppleFixture.home)
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(result.account.identifier == AppleFixture.home)
        #expect(provider.tokenRequests.count == before + 1)
        // The tokens are now in the unified cache; the ADAL item is kept as it was (read, never rewritten).
        #expect(AppleFixture.storedEntries.contains { ($0.service ?? "").hasPrefix("refreshtoken-") })
        let adal = AppleFixture.storedEntries.filter { ($0.service ?? "").hasPrefix("MSOpenTech.ADAL.1|") }
        #expect(adal.count == 1)
        #expect(adal.first?.attributes[kSecAttrGeneric as String] as? Data == Data("MSOpenTech.ADAL.1".utf8))
    }

    @Test("With writesLegacyADALRefreshTokens a sign-in is written as an ADAL item of the group, and removed with the account")
    @MainActor
    func writesADALItemsWhenAsked() async throws {
        let (provider, shown) = AppleFixture.interactive()
        let config = try AppleFixture.config(provider)
        config.cacheConfig.writesLegacyADALRefreshTokens = true
        let app = try MSALPublicClientApplication(configuration: config)
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller)))
        let adal = AppleFixture.storedEntries.filter { ($0.service ?? "").hasPrefix("MSOpenTech.ADAL.1|") }
        #expect(!adal.isEmpty)
        let expectedAccount = Base64URL.encode(Data(provider.user.username.lowercased().utf8))
        #expect(adal.allSatisfy { $0.account == expectedAccount && $0.accessGroup == AppleFixture.accessGroup })
        let item = try LegacyTokenCacheItem.decode(try #require(adal.first?.data))
        #expect(item.hasRefreshToken && item.homeAccountId == result.account.identifier)
        try app.remove(result.account)
        #expect(AppleFixture.storedEntries.filter { ($0.service ?? "").hasPrefix("MSOpenTech.ADAL.1|") }.isEmpty)
    }

    @Test("The legacy shared-accounts list joins the account lookups, and records sign-ins and removals in read-write mode")
    @MainActor
    func legacySharedAccounts() async throws {
        let (provider, shown) = AppleFixture.interactive()
        let bundle = Bundle.main.bundleIdentifier ?? ""
        let blob: [String: Any] = ["lastWriteTimestamp": 100, "A1": [
            "authEndpointUrl": "https://login.windows.net/common/oauth2/authorize", "id": "A1", "type": "ADAL",
            "oid": "00000000-0000-0000-0000-0000000000a1", "tenantId": "00000000-0000-0000-0000-0000000000t1",
            "username": "shared@contoso.com", "signInStatus": [bundle: "SignedIn"]]]
        var item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: AppleFixture.accessGroup,
            kSecAttrService as String: "MyAccountService", kSecAttrAccount as String: "AccountsV3",
            kSecValueData as String: try JSONSerialization.data(withJSONObject: blob),
        ]
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        let shared = MSALLegacySharedAccountsProvider(sharedKeychainAccessGroup: AppleFixture.group,
                                                      serviceIdentifier: "MyAccountService", applicationIdentifier: "Example")
        #expect(shared.sharedAccountMode == .readOnly)
        let config = try AppleFixture.config(provider)
        config.cacheConfig.addExternalAccountProvider(shared)
        let app = try MSALPublicClientApplication(configuration: config)
        #expect(try app.account(forUsername: "shared@contoso.com").identifier
            == "00000000-0000-0000-0000-0000000000a1.00000000-0000-0000-0000-0000000000t1")
        shared.sharedAccountMode = .readWrite
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller)))
        func list(_ version: Int) -> [String: Any]? {
            let stored = SurfaceKeychain.shared.storedItems.first { $0.service == "MyAccountService" && $0.account == "AccountsV\(version)" }
            return (stored?.data).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
        func entry(of oid: String, _ version: Int) -> [String: Any]? {
            list(version)?.values.compactMap { $0 as? [String: Any] }.first { $0["oid"] as? String == oid }
        }
        let signedIn = try #require(entry(of: provider.user.oid, 3))
        #expect((signedIn["signInStatus"] as? [String: String])?[bundle] == "SignedIn")
        #expect(entry(of: provider.user.oid, 2) != nil && list(1) != nil)
        try app.remove(result.account)
        #expect((entry(of: provider.user.oid, 3)?["signInStatus"] as? [String: String])?[bundle] == "SignedOut")
    }
}
#endif

#if canImport(AppKit) && !canImport(UIKit)
import Foundation
import MSAL
import MSALCore
import MSALTesting
import Security
import Testing

/// macOS: ADAL's serialized cache kept in a login-keychain item (`init(keychainAttributes:trustedApplications:accessLabel:)`)
/// is seeded with each sign-in's refresh token, as MSAL for iOS/macOS seeds it.
extension AppleSurfaceTests {
    @Test("A sign-in is seeded into the ADAL cache item of the login keychain")
    @MainActor
    func seedsTheLoginKeychainADALCache() async throws {
        let (provider, shown) = AppleFixture.interactive()
        let config = try AppleFixture.config(provider)
        let attributes: [String: Any] = [kSecAttrService as String: "ADALCache", kSecAttrAccount as String: "com.example.app"]
        #expect(throws: MSALErrorInfo.self) {
            try MSALSerializedADALCacheProvider(keychainAttributes: [kSecAttrService as String: "ADALCache"],
                                                trustedApplications: [], accessLabel: "ADAL cache")
        }
        let trusted = try config.cacheConfig.createTrustedApplicationList(fromPaths: [])
        config.cacheConfig.trustedApplications = trusted
        #expect(config.cacheConfig.trustedApplications?.count == 1)
        config.cacheConfig.serializedADALCache = try MSALSerializedADALCacheProvider(
            keychainAttributes: attributes, trustedApplications: trusted, accessLabel: "ADAL cache")
        let app = try MSALPublicClientApplication(configuration: config)
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller)))
        let stored = try #require(SurfaceKeychain.shared.storedItems.first { $0.service == "ADALCache" })
        #expect(!stored.inDataProtectionKeychain && stored.account == "com.example.app")
        let cache = try SerializedADALCache(data: try #require(stored.data))
        let items = cache.storedItems
        #expect(!items.isEmpty)
        #expect(try items.allSatisfy { try LegacyTokenCacheItem.decode($0.data).homeAccountId == result.account.identifier })
    }
}
#endif
