import Foundation
import MSAL
import MSALTesting
import Testing
@testable import MSALCore
import MSALTestSupport

/// App tokens (client credentials) shared with Microsoft's MSAL for Python through one unified cache file, both
/// ways: each library's `acquire_token_for_client` is answered from the token the other stored.
@Suite("App tokens shared with MSAL for Python", .serialized)
struct InteropAppTokenTests {
    static let scope = "https://graph.microsoft.com/.default"

    func makeApp(_ provider: MSALScriptedIdentityProvider, file: URL) throws -> MSALConfidentialClientApplication {
        let authority = try MSALAADAuthority(url: URL(string: "https://\(provider.host)/\(provider.tenant)")!)
        let config = MSALConfidentialClientApplicationConfig(clientId: provider.clientId, clientCredential: .secret("s"),
                                                             authority: authority)
        config.httpClient = provider
        config.cacheConfig.storage = MSALFileTokenCacheStorage(fileURL: file)
        return try MSALConfidentialClientApplication(configuration: config)
    }

    func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-app-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("cache.json")
    }

    @Test(.enabled(if: InteropTests.python != nil)) func msalPythonHitsTheAppTokenThisLibraryStored() async throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let provider = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        let token = try await makeApp(provider, file: file).acquireTokenForClient(
            with: MSALClientCredentialParameters(scopes: [Self.scope]))
        let peer = try await InteropTests.runPeer(["read-app", file.path, provider.clientId, provider.tenant, Self.scope])
        #expect(peer["token_requests"] as? Int == 0)
        #expect(peer["token_source"] as? String == "cache")
        #expect(peer["access_token"] as? String == token.accessToken)
    }

    @Test(.enabled(if: InteropTests.python != nil)) func thisLibraryHitsTheAppTokenMSALPythonStored() async throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let provider = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        _ = try await InteropTests.runPeer(["write-app", file.path, provider.clientId, provider.tenant, Self.scope,
                                      String(Int(Date().timeIntervalSince1970))])
        let result = try await makeApp(provider, file: file).acquireTokenForClient(
            with: MSALClientCredentialParameters(scopes: [Self.scope]))
        #expect(result.accessToken == "PY-APP-TOKEN")
        #expect(result.tokenSource == .cache)
        #expect(provider.tokenRequests.isEmpty)
        // The file stays one MSAL for Python reads after this library opened it.
        let peer = try await InteropTests.runPeer(["read-app", file.path, provider.clientId, provider.tenant, Self.scope])
        #expect(peer["token_source"] as? String == "cache")
    }
}
