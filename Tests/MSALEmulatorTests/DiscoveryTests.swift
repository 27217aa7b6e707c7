import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

@Suite("Discovery, OpenID configuration and keys")
struct DiscoveryTests {
    @Test func openIDConfigurationResolvesDomainTenantsAndKeepsHost() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let document = try await client.get("/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration").json
        let base = emulator.httpURL.absoluteString
        #expect(document["token_endpoint"] as? String == "\(base)/\(EmulatorConfiguration.demoTenantId)/oauth2/v2.0/token")
        #expect(document["issuer"] as? String == "\(base)/\(EmulatorConfiguration.demoTenantId)/v2.0")
        let common = try await client.get("/organizations/v2.0/.well-known/openid-configuration").json
        #expect(common["issuer"] as? String == "\(base)/{tenantid}/v2.0")
        #expect(common["token_endpoint"] as? String == "\(base)/organizations/oauth2/v2.0/token")
        let unknown = try await client.get("/nowhere.example/v2.0/.well-known/openid-configuration")
        #expect(unknown.status == 400)
        #expect(unknown.json["error"] as? String == "invalid_tenant")
        #expect((unknown.json["error_description"] as? String)?.hasPrefix("AADSTS90002") == true)
    }

    @Test func instanceDiscoveryKnowsOnlyTheEmulatorHost() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let own = emulator.httpURL.absoluteString + "/common/oauth2/v2.0/authorize"
        let good = try await client.get("/common/discovery/instance?api-version=1.1&authorization_endpoint=\(URLText.encode(own))").json
        #expect(good["api-version"] as? String == "1.1")
        #expect((good["metadata"] as? [[String: Any]])?.first?["aliases"] != nil)
        let bad = try await client.get("/common/discovery/instance?api-version=1.1&authorization_endpoint=\(URLText.encode("https://evil.example/common/oauth2/v2.0/authorize"))")
        #expect(bad.status == 400)
        #expect(bad.json["error"] as? String == "invalid_instance")
    }

    @Test func keysRotateOnDemand() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let before = try await client.get("/common/discovery/v2.0/keys").json["keys"] as? [[String: Any]] ?? []
        #expect(before.count == 1)
        #expect(before.first?["kty"] as? String == "RSA")
        try emulator.rotateSigningKeys()
        let after = try await client.get("/common/discovery/v2.0/keys").json["keys"] as? [[String: Any]] ?? []
        #expect(after.count == 2)
    }

    @Test func httpsListenerAndCAFileExist() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        #expect(emulator.httpsURL.scheme == "https")
        #expect(emulator.httpsURL.host == "127.0.0.1")
        let pem = try String(contentsOf: emulator.caCertificateURL, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(emulator.summary["username"] as? String == "adele@contoso.onmicrosoft.com")
    }

    @Test func configurationDecodesPartialJSON() throws {
        let json = #"{"lifetimes": {"accessToken": 5}, "autoApproveUsername": "adele@contoso.onmicrosoft.com"}"#
        let config = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data(json.utf8))
        #expect(config.lifetimes.accessToken == 5)
        #expect(config.lifetimes.refreshToken == TokenLifetimes().refreshToken)
        #expect(config.users == EmulatorConfiguration.default.users)
        let built = EmulatorConfigurationBuilder().lifetimes(TokenLifetimes(accessToken: 7)).autoApprove(username: "x").build()
        #expect(built.lifetimes.accessToken == 7 && built.autoApproveUsername == "x")
    }
}
