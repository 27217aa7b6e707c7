import Foundation
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator

/// A silent token for a tenant named by its domain costs no request once the tenant's id is known: the id is kept in
/// the token cache, so that a new process (a new application object on the same cache) finds its token offline.
@Suite("Domain-named tenants offline", .serialized)
struct DomainTenantOfflineTests {
    func makeApp(_ emulator: IdentityEmulator, http: MSALRecordingHTTPClient,
                 storage: any MSALTokenCacheStorage) throws -> MSALPublicClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/contoso.onmicrosoft.com")!
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.cacheConfig.storage = storage
        return try MSALPublicClientApplication(configuration: config)
    }

    @Test func aCachedTokenCostsNoRequestInANewApplicationWhileTheServerIsDown() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let file = ScratchDirectory.path("domain-tenant").appendingPathComponent("cache.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)

        let online = MSALRecordingHTTPClient(forwardingTo: MSALDefaultHTTPClient.shared)
        let first = try makeApp(emulator, http: online, storage: MSALFileTokenCacheStorage(fileURL: file))
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        let signedIn = try await first.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        let cached = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let domains = cached?["TenantDomains"] as? [String: Any]
        #expect(domains?.values.contains { ($0 as? [String: Any])?["tenant_id"] as? String == EmulatorConfiguration.demoTenantId } == true)
        await emulator.stop()

        // A new application on the same cache, with a transport that fails every request: the token is found.
        let offline = MSALRecordingHTTPClient { request in
            throw URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: request.url])
        }
        let second = try makeApp(emulator, http: offline, storage: MSALFileTokenCacheStorage(fileURL: file))
        let account = try #require(try second.allAccounts().first)
        let silent = try await second.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(silent.accessToken == signedIn.accessToken)
        #expect(offline.requests.isEmpty)
    }

    @Test func aTenantIdReadFromTheCacheIsUsedOnlyWithTheShapeOfOne() {
        let document = TokenCacheDocument()
        let descriptor = try! MSALAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.com")!).descriptor
        #expect(!document.recordTenantDomain(of: descriptor, tenantId: "../../etc"))
        #expect(document.recordTenantDomain(of: descriptor, tenantId: "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13"))
        #expect(!document.recordTenantDomain(of: descriptor, tenantId: "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13"))
        #expect(document.tenantId(forDomainOf: descriptor, hosts: []) == "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13")
        document.unknownSections["TenantDomains"] = .object(["login.microsoftonline.com/contoso.com": .object(["tenant_id": .string("x y")])])
        #expect(document.tenantId(forDomainOf: descriptor, hosts: []) == nil)
    }
}
