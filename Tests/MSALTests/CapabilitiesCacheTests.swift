import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Continuous access evaluation in a shared cache: an application declaring `cp1` and one declaring nothing, on
/// one cache, never take each other's access tokens (see `TokenCacheDocument+Capabilities.swift`).
@Suite("Client capabilities in a shared cache")
struct CapabilitiesCacheTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    private func accessTokenEntries(_ storage: MSALInMemoryTokenCacheStorage) throws -> [[String: Any]] {
        let data = try #require(storage.data)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return ((object["AccessToken"] as? [String: Any]) ?? [:]).values.compactMap { $0 as? [String: Any] }
    }

    @Test("A cp1 token is not returned to an application without capabilities, and the other way round")
    func tokensStayApart() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let cae = try makeFakeApp(provider, storage: storage) { $0.clientApplicationCapabilities = ["cp1"] }
        let plain = try makeFakeApp(provider, storage: storage)
        let signIn = try await cae.acquireToken(with: interactiveParameters(provider))

        provider.resetLog()
        let plainToken = try await plain.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account))
        #expect(plainToken.accessToken != signIn.accessToken)
        let refresh = try #require(provider.tokenRequestBodies().last)
        #expect(refresh["grant_type"] == "refresh_token")
        #expect(refresh["claims"] == nil)

        provider.resetLog()
        let caeAgain = try await cae.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account))
        let plainAgain = try await plain.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account))
        #expect(caeAgain.accessToken == signIn.accessToken)
        #expect(plainAgain.accessToken == plainToken.accessToken)
        #expect(provider.requests.isEmpty)

        let entries = try accessTokenEntries(storage)
        #expect(entries.count == 2)
        #expect(entries.filter { $0["xms_cc"] as? String == "cp1" }.count == 1)
        #expect(entries.filter { $0["xms_cc"] == nil }.count == 1)
    }

    @Test("A refresh with capabilities does not evict the token of the application without them")
    func refreshKeepsTheOtherToken() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let plain = try makeFakeApp(provider, storage: storage)
        let cae = try makeFakeApp(provider, storage: storage) { $0.clientApplicationCapabilities = ["cp1", "cp1"] }
        let signIn = try await plain.acquireToken(with: interactiveParameters(provider))
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account)
        silent.forceRefresh = true
        let caeToken = try await cae.acquireTokenSilent(with: silent)
        #expect(caeToken.accessToken != signIn.accessToken)
        #expect(provider.tokenRequestBodies().last?["claims"]?.contains("xms_cc") == true)
        provider.resetLog()
        let plainAgain = try await plain.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account))
        #expect(plainAgain.accessToken == signIn.accessToken)
        #expect(provider.requests.isEmpty)
        let data = try #require(storage.data)
        let keys = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let accessTokenKeys = ((keys["AccessToken"] as? [String: Any]) ?? [:]).keys
        #expect(accessTokenKeys.contains { $0.hasSuffix("-xms_cc=cp1") })
        #expect(accessTokenKeys.count == 2)
    }

    @Test("A claims challenge answered silently replaces only the cp1 token")
    func claimsChallengeRefresh() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let cae = try makeFakeApp(provider, storage: storage) { $0.clientApplicationCapabilities = ["cp1"] }
        let signIn = try await cae.acquireToken(with: interactiveParameters(provider))
        let challenge = #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signIn.account)
        silent.claimsRequest = try MSALClaimsRequest(jsonString: challenge)
        provider.resetLog()
        let fresh = try await cae.acquireTokenSilent(with: silent)
        #expect(fresh.accessToken != signIn.accessToken)
        let claims = try #require(provider.tokenRequestBodies().last?["claims"])
        #expect(claims.contains("xms_cc") && claims.contains("nbf"))
        let entries = try accessTokenEntries(storage)
        #expect(entries.count == 1)
    }

    @Test("The stored marker is sorted and deduplicated")
    func marker() {
        #expect(TokenCacheDocument.capabilitiesMarker(["cp2", "cp1", "cp2", ""]) == "cp1,cp2")
        #expect(TokenCacheDocument.capabilitiesMarker([]) == nil)
        #expect(TokenCacheDocument.capabilitiesMarker(nil) == nil)
    }
}
