import MSALTesting
import Foundation
import MSALTestSupport
import Testing
import MSAL
@testable import MSALCore
@testable import MSALFileStorage

/// Microsoft's MSAL for Python (pip package `msal`) as the independent peer of the token cache: a cache this
/// library wrote gives MSAL for Python silent hits, and a cache MSAL for Python wrote gives this library silent
/// hits. The test script installs the peer in `.venv`; set `MSAL_PYTHON` to use another interpreter.
@Suite("Token cache interoperability with MSAL for Python", .serialized)
struct InteropTests {
    static let python: String? = {
        if let configured = ProcessInfo.processInfo.environment["MSAL_PYTHON"] { return configured }
        let local = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: local) ? local : nil
    }()
    static let required = ProcessInfo.processInfo.environment["MSAL_INTEROP_REQUIRED"] == "1"
    static let peerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("python/msal_python_peer.py").path

    static func runPeer(_ arguments: [String]) async throws -> [String: Any] {
        guard let python else { throw PeerMissing() }
        let result = try await ProcessRunner.run(URL(fileURLWithPath: python), [peerScript] + arguments, timeout: 120)
        guard result.status == 0, !result.timedOut,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw PeerFailed(message: result.stderr)
        }
        return object
    }

    struct PeerMissing: Error {}
    struct PeerFailed: Error, CustomStringConvertible { let message: String; var description: String { message } }

    func temporaryCacheFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("msal-interop-\(UUID().uuidString)/cache.json")
    }

    @Test func peerIsAvailableWhenRequired() {
        #expect(!Self.required || Self.python != nil, "MSAL_INTEROP_REQUIRED is set but no Python with msal was found")
    }

    @Test(.enabled(if: python != nil)) func msalPythonHitsTheCacheThisLibraryWrote() async throws {
        let file = temporaryCacheFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let provider = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        let app = try makeFakeApp(provider, storage: MSALFileTokenCacheStorage(fileURL: file))
        let result = try await app.acquireToken(with: interactiveParameters(provider))
        let peer = try await Self.runPeer(["read", file.path, provider.clientId, provider.tenant, "User.Read"])
        #expect(peer["token_requests"] as? Int == 0)
        #expect(peer["token_source"] as? String == "cache")
        #expect(peer["access_token"] as? String == result.accessToken)
        let accounts = peer["accounts"] as? [[String: Any]]
        #expect(accounts?.count == 1)
        #expect(accounts?.first?["username"] as? String == "alice@contoso.example")
        #expect(accounts?.first?["home_account_id"] as? String == result.account.identifier)
    }

    @Test(.enabled(if: python != nil)) func thisLibraryHitsTheCacheMSALPythonWrote() async throws {
        let file = temporaryCacheFile()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let provider = MSALScriptedIdentityProvider(host: "login.microsoftonline.com")
        let now = Int(Date().timeIntervalSince1970)
        let written = try await Self.runPeer(["write", file.path, provider.clientId, provider.tenant, "User.Read", String(now)])
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(provider.tenant)")!)
        let config = MSALPublicClientApplicationConfig(clientId: provider.clientId, redirectUri: nil, authority: authority)
        config.httpClient = provider
        config.cacheConfig.storage = MSALFileTokenCacheStorage(fileURL: file)
        let app = try MSALPublicClientApplication(configuration: config)
        let accounts = try app.allAccounts()
        #expect(accounts.count == 1)
        let account = try #require(accounts.first)
        #expect(account.username == written["username"] as? String)
        #expect(account.identifier == written["home_account_id"] as? String)
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(result.accessToken == written["access_token"] as? String)
        #expect(provider.requests.isEmpty)
        // The file is still one MSAL for Python reads, after this library touched it.
        let peer = try await Self.runPeer(["read", file.path, provider.clientId, provider.tenant, "User.Read"])
        #expect(peer["token_source"] as? String == "cache")
    }
}
