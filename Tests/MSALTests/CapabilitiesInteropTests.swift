import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// A cp1 access token in a file MSAL for Python rewrites: the extra field and key survive, and each application
/// still gets its own token (see `TokenCacheDocument+Capabilities.swift`).
@Suite("Client capabilities in a cache MSAL for Python rewrites", .serialized)
struct CapabilitiesInteropTests {
    @Test(.enabled(if: InteropTests.python != nil)) func msalPythonKeepsTheCapabilitiesField() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("msal-interop-\(UUID().uuidString)/cache.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let provider = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        let storage = MSALFileTokenCacheStorage(fileURL: file)
        let cae = try makeFakeApp(provider, storage: storage) { $0.clientApplicationCapabilities = ["cp1"] }
        let plain = try makeFakeApp(provider, storage: storage)
        let signIn = try await cae.acquireToken(with: interactiveParameters(provider))

        _ = try await InteropTests.runPeer(["add", file.path, provider.clientId, provider.user.tenant, "User.Read",
                                      String(Int(Date().timeIntervalSince1970)), provider.user.oid])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let accessTokens = try #require(document["AccessToken"] as? [String: [String: Any]])
        #expect(accessTokens.count == 2)
        let marked = try #require(accessTokens.first { $0.key.hasSuffix("-xms_cc=cp1") })
        #expect(marked.value["xms_cc"] as? String == "cp1")
        #expect(marked.value["secret"] as? String == signIn.accessToken)

        provider.resetLog()
        let account = try #require(try plain.allAccounts().first)
        let caeAgain = try await cae.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        let plainToken = try await plain.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(caeAgain.accessToken == signIn.accessToken)
        #expect(plainToken.accessToken == "PY-ACCESS-TOKEN")
        #expect(provider.requests.isEmpty)
    }
}
