import MSALSupport
import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

@Suite("Device code, Graph, faults and B2C")
struct DeviceGraphFaultTests {
    @Test func deviceCodeStates() async throws {
        // A long polling interval: the second poll is "too fast" (within half of it) however slow the machine is.
        var configuration = EmulatorConfiguration.default
        configuration.lifetimes.deviceCodeInterval = 600
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let start = try await client.post("/organizations/oauth2/v2.0/devicecode", form: [("client_id", emulator.clientId), ("scope", "openid offline_access User.Read")]).json
        let deviceCode = try #require(start["device_code"] as? String)
        let userCode = try #require(start["user_code"] as? String)
        let poll: @Sendable (String) async throws -> Reply = { name in
            try await client.post("/organizations/oauth2/v2.0/token", form: [
                ("client_id", emulator.clientId), ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), (name, deviceCode),
            ])
        }
        #expect(try await poll("device_code").json["error"] as? String == "authorization_pending")
        #expect(try await poll("code").json["error"] as? String == "slow_down")
        // Approve through the pages.
        let entry = try await client.post("/devicelogin", form: [("step", "code"), ("otc", userCode)])
        #expect(entry.text.contains("id=\"signin-form\""))
        let done = try await client.post("/login", form: [("ctx", entry.ctx ?? ""), ("step", "signin"), ("username", emulator.username), ("password", emulator.password)])
        #expect(done.text.contains("device-done"))
        emulator.clock.advance(by: 10)
        let tokens = try await poll("code")
        #expect(tokens.status == 200 && tokens.json["access_token"] is String)

        // Declined and expired codes.
        let declined = try await client.post("/common/oauth2/v2.0/devicecode", form: [("client_id", emulator.clientId), ("scope", "User.Read")]).json
        let declinedPage = try await client.post("/devicelogin", form: [("step", "code"), ("otc", declined["user_code"] as? String ?? "")])
        _ = try await client.post("/login", form: [("ctx", declinedPage.ctx ?? ""), ("step", "signin"), ("action", "cancel")])
        let declinedPoll = try await client.post("/common/oauth2/v2.0/token", form: [
            ("client_id", emulator.clientId), ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", declined["device_code"] as? String ?? ""),
        ])
        #expect(declinedPoll.json["error"] as? String == "authorization_declined")
        emulator.clock.advance(by: 3600)
        let expired = try await poll("device_code")
        #expect(expired.json["error"] as? String == "expired_token")
    }

    @Test func graphChecksTheBearerToken() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let missing = try await client.get("/v1.0/me")
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "InvalidAuthenticationToken")
        let token = "/\(emulator.tenant)/oauth2/v2.0/token"
        let graphToken = try await client.post(token, form: [
            ("client_id", emulator.clientId), ("grant_type", "password"), ("username", emulator.username), ("password", emulator.password), ("scope", "User.Read"),
        ]).json["access_token"] as? String ?? ""
        let me = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(graphToken)"])
        #expect(me.status == 200)
        #expect(me.json["userPrincipalName"] as? String == emulator.username)
        #expect(me.json["displayName"] as? String == "Adele Vance")
        let other = try await client.get("/v1.0/users/alex@contoso.onmicrosoft.com", headers: ["Authorization": "Bearer \(graphToken)"])
        #expect(other.status == 403)
        let tampered = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(graphToken.dropLast(4))AAAA"])
        #expect(tampered.status == 401)
        emulator.clock.advance(by: 7200)
        let expired = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(graphToken)"])
        #expect(expired.status == 401)
    }

    @Test func faultsAreInjectedPerEndpoint() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        emulator.injectFault(FaultRule(endpoint: .token, status: 503, retryAfter: 7, count: 1))
        let failing = try await client.post("/common/oauth2/v2.0/token", form: [("grant_type", "password")])
        #expect(failing.status == 503 && failing.headers["retry-after"] == "7")
        let next = try await client.post("/common/oauth2/v2.0/token", form: [("grant_type", "password")])
        #expect(next.status == 400)
        emulator.injectFault(FaultRule(endpoint: .openIDConfiguration, malformedBody: true, count: 1))
        let malformed = try await client.get("/common/v2.0/.well-known/openid-configuration")
        #expect((try? JSONSerialization.jsonObject(with: malformed.body)) == nil)
        emulator.injectFault(FaultRule(endpoint: .keys, dropConnection: true, count: 1))
        // A fresh client: URLSession would silently retry a GET on a reused keep-alive connection.
        await #expect(throws: (any Error).self) { try await TestClient(emulator).get("/common/discovery/v2.0/keys") }
        #expect(try await client.get("/common/discovery/v2.0/keys").status == 200)
    }

    @Test func b2cPolicyPathsAndClientInfo() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let document = try await client.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin/v2.0/.well-known/openid-configuration").json
        #expect((document["token_endpoint"] as? String)?.hasSuffix("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin/oauth2/v2.0/token") == true)
        let path = "/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin/oauth2/v2.0/authorize?client_id=\(emulator.clientId)&response_type=code"
            + "&redirect_uri=\(URLText.encode(Fixture.redirect))&scope=\(URLText.encode("openid offline_access https://fabrikamb2c.onmicrosoft.com/api/demo.read"))"
            + "&code_challenge=\(Fixture.challenge)&code_challenge_method=S256&client_info=1"
        let page = try await client.get(path)
        #expect(page.text.contains("forgotPassword"))
        let done = try await client.post("/login", form: [("ctx", page.ctx ?? ""), ("step", "signin"), ("username", "carol@example.com"), ("password", "Passw0rd!")])
        let info = try #require(done.redirectParameters["client_info"].flatMap { Base64URL.decode($0) })
        let uid = (try JSONSerialization.jsonObject(with: info) as? [String: Any])?["uid"] as? String
        #expect(uid?.hasSuffix("-b2c_1_signupsignin") == true)
        let unknown = try await client.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_nope/v2.0/.well-known/openid-configuration")
        #expect(unknown.status == 400)
    }
}
