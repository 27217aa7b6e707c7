import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

@Suite("Authorize, token and refresh")
struct FlowTests {
    @Test func authorizationCodeWithPKCEIsSingleUse() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let page = try await client.get(Fixture.authorizePath(emulator))
        #expect(page.status == 200)
        #expect(page.text.contains("name=\"username\"") && page.text.contains("name=\"password\""))
        let wrong = try await client.post("/login", form: [("ctx", page.ctx ?? ""), ("step", "signin"), ("username", emulator.username), ("password", "nope"), ("action", "signin")])
        #expect(wrong.text.contains("AADSTS50126"))
        let done = try await Fixture.signIn(client, emulator)
        #expect(done.status == 302)
        #expect(done.location.hasPrefix(Fixture.redirect))
        let parameters = done.redirectParameters
        #expect(parameters["state"] == "st4te")
        #expect(parameters["client_info"] != nil)
        let code = try #require(parameters["code"])

        let badVerifier = try await Fixture.redeem(client, emulator, code: code, verifier: String(repeating: "a", count: 43))
        #expect(badVerifier.status == 400)
        #expect(badVerifier.json["error"] as? String == "invalid_grant")
        #expect((badVerifier.json["error_codes"] as? [Int]) == [501481])

        let tokens = try await Fixture.redeem(client, emulator, code: code)
        #expect(tokens.status == 200)
        let body = tokens.json
        #expect(body["token_type"] as? String == "Bearer")
        #expect(body["expires_in"] as? Int == 3600)
        #expect(body["ext_expires_in"] as? Int == 3600)
        #expect(body["refresh_token"] is String && body["client_info"] is String)
        #expect((body["scope"] as? String)?.contains("User.Read") == true)
        let access = Fixture.claims(body["access_token"] as? String ?? "")
        #expect(access["aud"] as? String == EmulatorConfiguration.graphResource)
        #expect(access["scp"] as? String == "openid profile User.Read")
        #expect(access["tid"] as? String == EmulatorConfiguration.demoTenantId)
        let id = Fixture.claims(body["id_token"] as? String ?? "")
        #expect(id["nonce"] as? String == "n0nce")
        #expect(id["preferred_username"] as? String == emulator.username)
        #expect(id["aud"] as? String == emulator.clientId)

        let again = try await Fixture.redeem(client, emulator, code: code)
        #expect(again.status == 400)
        #expect((again.json["error_codes"] as? [Int]) == [54005])
        #expect(again.json["trace_id"] is String && again.json["correlation_id"] is String && again.json["timestamp"] is String)
    }

    @Test func refreshTokensRotateAndReachOtherResourcesAndFamily() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let token = "/\(emulator.tenant)/oauth2/v2.0/token"
        let familyOne = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9", familyTwo = "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"
        let first = try await client.post(token, form: [
            ("client_id", familyOne), ("grant_type", "password"), ("username", emulator.username), ("password", emulator.password),
            ("scope", "openid offline_access User.Read"),
        ]).json
        #expect(first["foci"] as? String == "1")
        let rt = try #require(first["refresh_token"] as? String)
        let second = try await client.post(token, form: [("client_id", familyTwo), ("grant_type", "refresh_token"), ("refresh_token", rt), ("scope", "User.Read offline_access")])
        #expect(second.status == 200)
        let rotated = try #require(second.json["refresh_token"] as? String)
        #expect(rotated != rt)
        let reuse = try await client.post(token, form: [("client_id", familyTwo), ("grant_type", "refresh_token"), ("refresh_token", rt), ("scope", "User.Read")])
        #expect(reuse.status == 400 && reuse.json["error"] as? String == "invalid_grant")
        // Same refresh token, another resource, not consented yet: consent_required.
        let other = try await client.post(token, form: [("client_id", familyTwo), ("grant_type", "refresh_token"), ("refresh_token", rotated), ("scope", "api://msal-emulator-api/access_as_user")])
        #expect(other.json["suberror"] as? String == "consent_required")
        let outsider = try await client.post(token, form: [("client_id", emulator.clientId), ("grant_type", "refresh_token"), ("refresh_token", rotated), ("scope", "User.Read")])
        #expect(outsider.json["error"] as? String == "invalid_grant")
    }

    @Test func partialConsentLeavesOutDeclinedScopes() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let signedIn = try await Fixture.signIn(client, emulator, scope: "openid offline_access User.Read Mail.Read")
        #expect(signedIn.text.contains("id=\"consent-form\""))
        let done = try await client.post("/login", form: [("ctx", signedIn.ctx ?? ""), ("step", "consent"), ("action", "accept")])
        let code = try #require(done.redirectParameters["code"])
        let tokens = try await client.post("/\(emulator.tenant)/oauth2/v2.0/token", form: [
            ("client_id", emulator.clientId), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Fixture.redirect),
            ("code_verifier", Fixture.verifier), ("scope", "openid offline_access User.Read Mail.Read"),
        ]).json
        let scope = try #require(tokens["scope"] as? String)
        #expect(scope.contains("User.Read") && !scope.contains("Mail.Read"))
    }

    @Test func authorizeErrorsAndPromptNone() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let none = try await client.get(Fixture.authorizePath(emulator, extra: "&prompt=none"))
        #expect(none.status == 302)
        #expect(none.redirectParameters["error"] == "interaction_required")
        #expect(none.redirectParameters["state"] == "st4te")
        let noPKCE = try await client.get("/common/oauth2/v2.0/authorize?client_id=\(emulator.clientId)&response_type=code&redirect_uri=\(URLText.encode("http://127.0.0.1:9999"))&scope=openid&response_mode=fragment")
        #expect(URLComponents(string: noPKCE.location)?.fragment?.contains("error=invalid_request") == true)
        let badRedirect = try await client.get("/common/oauth2/v2.0/authorize?client_id=\(emulator.clientId)&response_type=code&redirect_uri=\(URLText.encode("https://evil.example/"))&scope=openid")
        #expect(badRedirect.status == 400 && badRedirect.text.contains("AADSTS50011"))
        let cancel = try await client.get(Fixture.authorizePath(emulator, extra: "&response_mode=form_post"))
        let cancelled = try await client.post("/login", form: [("ctx", cancel.ctx ?? ""), ("step", "signin"), ("action", "cancel")])
        #expect(cancelled.text.contains("name=\"error\" value=\"access_denied\"") && cancelled.text.contains("hiddenform"))
    }

    @Test func sessionCookieGivesSingleSignOn() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let first = try await Fixture.signIn(client, emulator)
        let cookie = try #require(first.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let silent = try await client.get(Fixture.authorizePath(emulator, extra: "&prompt=none"), headers: ["Cookie": cookie])
        #expect(silent.redirectParameters["code"] != nil)
        let picker = try await client.get(Fixture.authorizePath(emulator, extra: "&prompt=select_account"), headers: ["Cookie": cookie])
        #expect(picker.text.contains("id=\"picker-form\""))
        let logout = try await client.get("/common/oauth2/v2.0/logout?post_logout_redirect_uri=\(URLText.encode("http://localhost/bye"))", headers: ["Cookie": cookie])
        #expect(logout.status == 302 && logout.location == "http://localhost/bye")
        let after = try await client.get(Fixture.authorizePath(emulator, extra: "&prompt=none"), headers: ["Cookie": cookie])
        #expect(after.redirectParameters["error"] == "interaction_required")
    }

    @Test func autoApproveSkipsThePages() async throws {
        let config = EmulatorConfigurationBuilder().autoApprove(username: "alex@contoso.onmicrosoft.com").build()
        let emulator = try await IdentityEmulator.start(config)
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await client.get(Fixture.authorizePath(emulator))
        let code = try #require(reply.redirectParameters["code"])
        let tokens = try await Fixture.redeem(client, emulator, code: code).json
        #expect(Fixture.claims(tokens["id_token"] as? String ?? "")["preferred_username"] as? String == "alex@contoso.onmicrosoft.com")
    }
}
