import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Sign-out from the cache: this application only, or every application sharing the cache (`wipeAccount`).
@Suite("Sign-out")
struct SignOutTests {
    let provider = MSALScriptedIdentityProvider(host: "login-so-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    /// Two applications (different client ids) signed in with the same account on one cache.
    private func twoApplications() async throws -> (MSALPublicClientApplication, MSALPublicClientApplication, MSALAccount) {
        let storage = MSALInMemoryTokenCacheStorage()
        let first = try makeFakeApp(provider, storage: storage)
        let second = try makeFakeApp(provider, storage: storage) { config in
            config.clientId = "c0ffee00-0000-4000-8000-000000000002"
        }
        let account = try await first.acquireToken(with: interactiveParameters(provider)).account
        _ = try await second.acquireToken(with: interactiveParameters(provider))
        return (first, second, account)
    }

    @Test("A plain sign-out leaves the other application's refresh token: it still gets tokens silently")
    func plainSignOutKeepsOthers() async throws {
        let (first, second, account) = try await twoApplications()
        #expect(try await first.signout(with: account, signoutParameters: MSALSignoutParameters()))
        #expect(try first.allAccounts().isEmpty)
        let silent = try await second.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(!silent.accessToken.isEmpty)
    }

    @Test("wipeAccount signs the account out of every application sharing the cache")
    func wipeAccountRemovesEveryClientsTokens() async throws {
        let (first, second, account) = try await twoApplications()
        let parameters = MSALSignoutParameters()
        parameters.wipeAccount = true
        #expect(try await first.signout(with: account, signoutParameters: parameters))
        #expect(try first.allAccounts().isEmpty)
        #expect(try second.allAccounts().isEmpty)
        await #expect {
            try await second.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        } throws: { ($0 as NSError).code == MSALError.interactionRequired.rawValue }
    }

    /// wipeCacheForAllAccounts wipes every account of the cache, of every application, as MSAL for iOS/macOS wipes its
    /// keychain group (`MSIDDefaultTokenCacheAccessor.m:831-861`), whatever account the call names.
    @Test("wipeCacheForAllAccounts wipes every account of every application sharing the cache")
    func wipeCacheForAllAccountsRemovesEverything() async throws {
        let (first, second, account) = try await twoApplications()
        let parameters = MSALSignoutParameters()
        parameters.wipeCacheForAllAccounts = true
        #expect(try await first.signout(with: account, signoutParameters: parameters))
        #expect(try first.allAccounts().isEmpty)
        #expect(try second.allAccounts().isEmpty)
        let storage = try #require(first.configuration.cacheConfig.storage as? MSALInMemoryTokenCacheStorage)
        let document = try #require(try JSONSerialization.jsonObject(with: storage.data ?? Data()) as? [String: Any])
        for section in ["AccessToken", "RefreshToken", "IdToken", "Account"] {
            #expect((document[section] as? [String: Any] ?? [:]).isEmpty, "\(section)")
        }
    }
}
