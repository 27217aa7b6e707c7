import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

@Suite("Client credentials grant and Graph /v1.0/users")
struct ClientCredentialsTests {
    let daemon = EmulatorConfiguration.daemonClientId

    @Test func secretGivesAnAppOnlyTokenShapedAsEntras() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret")
        #expect(reply.status == 200)
        let body = reply.json
        #expect(Set(body.keys) == ["token_type", "expires_in", "ext_expires_in", "access_token"])
        #expect(body["token_type"] as? String == "Bearer")
        #expect(body["expires_in"] as? Int == 3600 && body["ext_expires_in"] as? Int == 3600)
        let claims = Fixture.claims(body["access_token"] as? String ?? "")
        #expect(claims["aud"] as? String == EmulatorConfiguration.graphResource)
        #expect(claims["iss"] as? String == "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)/v2.0")
        #expect(claims["tid"] as? String == EmulatorConfiguration.demoTenantId)
        #expect(claims["appid"] as? String == daemon && claims["azp"] as? String == daemon)
        #expect(claims["azpacr"] as? String == "1")
        #expect(claims["idtyp"] as? String == "app")
        #expect(claims["roles"] as? [String] == ["User.Read.All"])
        #expect(claims["scp"] == nil && claims["upn"] == nil)
        let oid = try #require(claims["oid"] as? String)
        #expect(claims["sub"] as? String == oid)
        #expect(UUID(uuidString: oid) != nil)

        // The service principal id is stable; HTTP Basic authentication works as well; the tenant GUID as well.
        let basic = Data("\(daemon):daemon-secret".utf8).base64EncodedString()
        let again = try await client.post("/\(EmulatorConfiguration.demoTenantId)/oauth2/v2.0/token", form: [
            ("grant_type", "client_credentials"), ("scope", "00000003-0000-0000-c000-000000000000/.default"),
        ], headers: ["Authorization": "Basic \(basic)"])
        #expect(again.status == 200)
        #expect(Fixture.claims(again.json["access_token"] as? String ?? "")["oid"] as? String == oid)
    }

    @Test func wrongSecretIsInvalidClientWithoutEchoingIt() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let reply = try await Confidential.clientCredentials(TestClient(emulator), clientId: daemon, secret: "not-the-secret-value")
        #expect(reply.status == 401)
        #expect(reply.json["error"] as? String == "invalid_client")
        #expect(Confidential.code(reply) == 7000215)
        // Credentials posted in the form get no Basic challenge (which would only suit HTTP Basic clients).
        #expect(reply.headers["www-authenticate"] == nil)
        #expect(!reply.text.contains("not-the-secret-value"))
        let none = try await Confidential.clientCredentials(TestClient(emulator), clientId: daemon)
        #expect(none.status == 401 && Confidential.code(none) == 7000218)
    }

    @Test func scopeMustBeOneResourceSlashDefault() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        for scope in ["https://graph.microsoft.com/User.Read.All", "User.Read", "openid https://graph.microsoft.com/.default"] {
            let reply = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret", scope: scope)
            #expect(reply.status == 400)
            #expect(reply.json["error"] as? String == "invalid_scope")
            #expect(Confidential.code(reply) == 1002012)
            #expect((reply.json["error_description"] as? String)?.contains("/.default suffixed to the resource identifier") == true)
        }
        let two = try await Confidential.clientCredentials(
            client, clientId: daemon, secret: "daemon-secret", scope: "https://graph.microsoft.com/.default api://msal-emulator-api/.default"
        )
        #expect(two.json["error"] as? String == "invalid_scope" && Confidential.code(two) == 28000)
        let unknown = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret", scope: "api://nowhere/.default")
        #expect(unknown.json["error"] as? String == "invalid_resource" && Confidential.code(unknown) == 500011)
        // Another app's API: a token without roles (the daemon has none there), addressed to its app id URI.
        let other = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret", scope: "api://\(EmulatorConfiguration.middleTierClientId)/.default")
        let claims = Fixture.claims(other.json["access_token"] as? String ?? "")
        #expect(claims["aud"] as? String == "api://\(EmulatorConfiguration.middleTierClientId)")
        #expect(claims["roles"] == nil)
    }

    @Test func tenantlessAuthoritiesAreRefused() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        for tenant in ["common", "organizations", "consumers"] {
            let reply = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret", path: "/\(tenant)/oauth2/v2.0/token")
            #expect(reply.status == 400)
            #expect(reply.json["error"] as? String == "invalid_request")
            #expect(Confidential.code(reply) == 50059)
        }
    }

    @Test func publicClientsCannotUseTheGrant() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let bare = try await Confidential.clientCredentials(client, clientId: emulator.clientId)
        #expect(bare.status == 401 && bare.json["error"] as? String == "invalid_client" && Confidential.code(bare) == 7000218)
        let withSecret = try await Confidential.clientCredentials(client, clientId: emulator.clientId, secret: "anything")
        #expect(withSecret.status == 401 && Confidential.code(withSecret) == 700025)
    }

    @Test func graphListsUsersForTheUserReadAllRoleOnly() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let appToken = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret").json["access_token"] as? String ?? ""
        let list = try await client.get("/v1.0/users", headers: ["Authorization": "Bearer \(appToken)"])
        #expect(list.status == 200)
        let users = try #require(list.json["value"] as? [[String: Any]])
        let names = Set(users.compactMap { $0["userPrincipalName"] as? String })
        #expect(names == ["adele@contoso.onmicrosoft.com", "alex@contoso.onmicrosoft.com", "megan@outlook.com"])
        #expect(users.allSatisfy { $0["id"] is String && $0["displayName"] is String && $0["mail"] is String })
        let one = try await client.get("/v1.0/users/alex@contoso.onmicrosoft.com", headers: ["Authorization": "Bearer \(appToken)"])
        #expect(one.json["displayName"] as? String == "Alex Wilber")
        let me = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(appToken)"])
        #expect(me.status == 400 && (me.json["error"] as? [String: Any])?["code"] as? String == "BadRequest")

        // The web app has no application permission: its app token is refused.
        let webToken = try await Confidential.clientCredentials(
            client, clientId: EmulatorConfiguration.webAppClientId, secret: "emulator-secret"
        ).json["access_token"] as? String ?? ""
        let refused = try await client.get("/v1.0/users", headers: ["Authorization": "Bearer \(webToken)"])
        #expect(refused.status == 403)
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "Authorization_RequestDenied")

        // A delegated token with only User.Read cannot list; one with User.ReadBasic.All can.
        let userRead = try await Confidential.userToken(client, emulator, scope: "User.Read")
        #expect(try await client.get("/v1.0/users", headers: ["Authorization": "Bearer \(userRead)"]).status == 403)
        let config = EmulatorConfigurationBuilder().application(EmulatedApplication(
            clientId: emulator.clientId, displayName: "Demo", redirectURIs: ["http://localhost"],
            preConsentedScopes: ["https://graph.microsoft.com/User.ReadBasic.All"]
        )).build()
        let second = try await IdentityEmulator.start(config)
        defer { Task { await second.stop() } }
        let secondClient = TestClient(second)
        let basic = try await Confidential.userToken(secondClient, second, scope: "User.ReadBasic.All")
        let delegated = try await secondClient.get("/v1.0/users", headers: ["Authorization": "Bearer \(basic)"])
        #expect(delegated.status == 200 && (delegated.json["value"] as? [Any])?.count == 3)
        #expect(try await client.get("/v1.0/users").status == 401)
    }
}
