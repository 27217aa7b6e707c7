import Foundation
import MSAL
import MSALTesting
import Security
import Testing
import AuthenticationServices

/// The keychain token cache: items MSAL for iOS/macOS wrote are read as accounts and tokens; items this package
/// writes have MSAL for iOS/macOS's attributes; what the app does not own is kept; keychain failures are MSAL's
/// errors.
extension AppleSurfaceTests {
    /// Adds an item exactly as MSAL for iOS/macOS adds one (MSIDKeychainTokenCache): generic password in the
    /// shared group, account / service / generic / type, accessible after first unlock, the entry's JSON.
    static func addAsMSALObjC(account: String, service: String, generic: String?, type: Int, entry: [String: String]) {
        var attributes: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccessGroup as String: AppleFixture.accessGroup,
            kSecAttrAccount as String: account,
            kSecAttrService as String: service,
            kSecAttrType as String: NSNumber(value: type),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            kSecValueData as String: try! JSONSerialization.data(withJSONObject: entry),
        ]
        if let generic { attributes[kSecAttrGeneric as String] = Data(generic.utf8) }
        if MSALKeychainTokenCacheStorage.dataProtectionByDefault {
            attributes[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue
        }
        #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
    }

    /// The items of one signed-in user as MSAL for iOS/macOS's cache schema tests write them (AT, ID token, RT,
    /// account, app metadata), the AT valid for an hour.
    static func addSignedInUserAsMSALObjC(_ provider: MSALScriptedIdentityProvider, accessToken: String) {
        let now = Int(Date().timeIntervalSince1970)
        let f = AppleFixture.self
        let target = "Calendars.Read openid profile Tasks.Read User.Read email"
        addAsMSALObjC(account: f.itemAccount, service: "accesstoken-\(f.client)-\(f.tenant)-\(target.lowercased())",
                      generic: "accesstoken-\(f.client)-\(f.tenant)", type: 2001, entry: [
                          "credential_type": "AccessToken", "secret": accessToken, "home_account_id": f.home,
                          "environment": f.environment, "client_id": f.client, "realm": f.tenant, "target": target,
                          "cached_at": "\(now)", "expires_on": "\(now + 3600)", "extended_expires_on": "\(now + 3600)",
                      ])
        addAsMSALObjC(account: f.itemAccount, service: "idtoken-\(f.client)-\(f.tenant)-",
                      generic: "idtoken-\(f.client)-\(f.tenant)", type: 2003, entry: [
                          "credential_type": "IdToken", "secret": provider.idToken(nonce: nil), "home_account_id": f.home,
                          "environment": f.environment, "client_id": f.client, "realm": f.tenant,
                      ])
        addAsMSALObjC(account: f.itemAccount, service: "refreshtoken-\(f.client)--", generic: "refreshtoken-\(f.client)-",
                      type: 2002, entry: [
                          "credential_type": "RefreshToken", "secret": "objc-refresh-token", "home_account_id": f.home,
                          "environment": f.environment, "client_id": f.client,
                      ])
        addAsMSALObjC(account: f.itemAccount, service: f.tenant, generic: "idlab@msidlab4.onmicrosoft.com", type: 1003,
                      entry: [
                          "home_account_id": f.home, "environment": f.environment, "realm": f.tenant,
                          "local_account_id": f.oid, "username": "idlab@msidlab4.onmicrosoft.com",
                          "authority_type": "MSSTS",
                      ])
        addAsMSALObjC(account: f.environment, service: "appmetadata-\(f.client)", generic: "", type: 3001,
                      entry: ["client_id": f.client, "environment": f.environment])
    }

    @Test("A user MSAL for iOS/macOS signed in is signed in here: accounts and a silent token from its keychain items, no request")
    func readsMSALObjCItems() async throws {
        AppleFixture.resetKeychain()
        let provider = MSALScriptedIdentityProvider()
        Self.addSignedInUserAsMSALObjC(provider, accessToken: "objc-access-token")
        let app = try AppleFixture.app(provider)
        let accounts = try app.allAccounts()
        #expect(accounts.map(\.username) == ["idlab@msidlab4.onmicrosoft.com"])
        let account = try #require(accounts.first)
        #expect(account.homeAccountId?.identifier == AppleFixture.home)
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(result.accessToken == "objc-access-token")
        #expect(provider.tokenRequests.isEmpty)
    }

    @Test("Apps of one keychain group share sign-in; an app with its own group does not see it")
    func groupsShareSignIn() async throws {
        AppleFixture.resetKeychain()
        let provider = MSALScriptedIdentityProvider()
        Self.addSignedInUserAsMSALObjC(provider, accessToken: "objc-access-token")
        #expect(try AppleFixture.app(provider).allAccounts().count == 1)
        #expect(try AppleFixture.app(provider, group: "com.example.app").allAccounts().isEmpty)
    }

    @Test("A sign-in writes one item per entry with MSAL for iOS/macOS's attributes, in the shared group")
    @MainActor
    func writesMSALObjCLayout() async throws {
        let (provider, shown) = AppleFixture.interactive()
        let app = try AppleFixture.app(provider)
        let parameters = MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller))
        let result = try await app.acquireToken(with: parameters)
        let f = AppleFixture.self
        let items = AppleFixture.storedEntries
        #expect(items.allSatisfy { $0.accessGroup == f.accessGroup })
        #expect(items.allSatisfy { $0.inDataProtectionKeychain })
        #expect(items.allSatisfy { $0.attributes[kSecAttrAccessible as String] as? String == "cku" })
        func item(_ service: String) -> SurfaceKeychain.Item? { items.first { $0.service == service } }
        let granted: Set<String> = Set(result.scopes.map { $0.lowercased() })
        let at = try #require(items.first { $0.type == 2001 })
        let prefix = "accesstoken-\(f.client)-\(f.tenant)-"
        let service: String = at.service ?? ""
        #expect(at.account == f.itemAccount)
        #expect(service.hasPrefix(prefix))
        let itemScopes: Set<String> = Set(service.dropFirst(prefix.count).split(separator: " ").map { String($0) })
        #expect(itemScopes.isSuperset(of: granted))
        #expect(at.generic == Data("accesstoken-\(f.client)-\(f.tenant)".utf8))
        #expect(item("refreshtoken-\(f.client)--")?.type == 2002)
        #expect(item("refreshtoken-\(f.client)--")?.generic == Data("refreshtoken-\(f.client)-".utf8))
        #expect(item("idtoken-\(f.client)-\(f.tenant)-")?.type == 2003)
        #expect(item(f.tenant)?.type == 1003)
        #expect(item(f.tenant)?.account == f.itemAccount)
        #expect(item("appmetadata-\(f.client)")?.account == f.environment)
        #expect(item("appmetadata-\(f.client)")?.type == 3001)
        #expect(items.count == 5)
        let secret = try #require(item("refreshtoken-\(f.client)--")?.data)
        let entry = try #require(try JSONSerialization.jsonObject(with: secret) as? [String: Any])
        #expect(entry["credential_type"] as? String == "RefreshToken")
        #expect(entry["client_id"] as? String == f.client)
    }

    @Test("Writing keeps what the app does not own: other items of the group, and entries another app added since the read")
    @MainActor
    func keepsOthersItems() async throws {
        AppleFixture.resetKeychain()
        SurfaceAuthenticationSessions.reset()
        let provider = MSALScriptedIdentityProvider()
        Self.addSignedInUserAsMSALObjC(provider, accessToken: "objc-access-token")
        // Another app's secret and MSAL for iOS/macOS's account metadata, in the same group.
        Self.addAsMSALObjC(account: "other-app", service: "api-key", generic: nil, type: 0, entry: ["key": "value"])
        Self.addAsMSALObjC(account: "authority_map", service: AppleFixture.client, generic: nil, type: 5001,
                           entry: ["client_id": AppleFixture.client])
        let app = try AppleFixture.app(provider)
        let account = try #require(try app.allAccounts().first)
        // Another app signs a second user in after this app read the keychain.
        let f = AppleFixture.self
        Self.addAsMSALObjC(account: "second.\(f.tenant)-\(f.environment)", service: "refreshtoken-\(f.client)--",
                           generic: "refreshtoken-\(f.client)-", type: 2002, entry: [
                               "credential_type": "RefreshToken", "secret": "second-rt", "home_account_id": "second.\(f.tenant)",
                               "environment": f.environment, "client_id": f.client,
                           ])
        #expect(try await app.signout(with: account, signoutParameters: MSALSignoutParameters()))
        let left = SurfaceKeychain.shared.storedItems
        #expect(left.contains { $0.account == "other-app" })
        #expect(left.contains { $0.account == "authority_map" && $0.type == 5001 })
        #expect(left.contains { $0.account == "second.\(f.tenant)-\(f.environment)" })
        #expect(!left.contains { $0.account == f.itemAccount && $0.type == 2002 })
    }

    @Test("Without the keychain-sharing entitlement calls fail with NSOSStatusErrorDomain -34018, as MSAL for iOS/macOS reports it")
    func missingEntitlement() async throws {
        AppleFixture.resetKeychain(entitled: false)
        let app = try AppleFixture.app(MSALScriptedIdentityProvider())
        do {
            _ = try app.allAccounts()
            Issue.record("expected a keychain error")
        } catch let error as MSALErrorInfo {
            #expect(error.code == .internal)
            #expect(error.underlyingNSError?.domain == "NSOSStatusErrorDomain")
            #expect(error.underlyingNSError?.code == -34018)
            #expect(error.errorDescription.contains("com.microsoft.adalcache"))
        }
    }

    @Test("A keychain that refuses to store a sign-in: the token is returned (and the failure logged), nothing is stored")
    @MainActor
    func failureWhileWriting() async throws {
        let (provider, shown) = AppleFixture.interactive()
        let app = try AppleFixture.app(provider)
        #expect(try app.allAccounts().isEmpty)
        SurfaceKeychain.shared.failAdds(with: errSecInteractionNotAllowed)
        let parameters = MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller))
        let result = try await app.acquireToken(with: parameters)
        #expect(!result.accessToken.isEmpty)
        #expect(AppleFixture.storedEntries.isEmpty)
        SurfaceKeychain.shared.failAdds(with: nil)
        #expect(try app.allAccounts().isEmpty)
    }
}
