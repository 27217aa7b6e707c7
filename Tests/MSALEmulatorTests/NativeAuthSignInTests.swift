import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// Native authentication's sign-in endpoints (Microsoft Entra External ID): `initiate`, `challenge`, and the token
/// endpoint's `password` and `oob` grants with continuation tokens, the one-time passcodes readable through the
/// control API, and the server's errors.
@Suite("Emulator: native authentication sign-in")
struct NativeAuthSignInTests {
    static let clientId = "5c4b3a29-1807-4f6e-9d5c-4b3a29180706"
    static let passwordUser = EmulatorConfiguration.customerWithPassword
    static let codeUser = EmulatorConfiguration.customerWithCode
    static let base = "/\(EmulatorConfiguration.externalTenantDomain)/oauth2/v2.0"
    static let scope = "openid profile offline_access User.Read"

    static func start() async throws -> IdentityEmulator {
        try await IdentityEmulator.start(EmulatorConfiguration.default)
    }

    func initiate(_ client: TestClient, _ username: String, types: String = "oob password redirect",
                  clientId: String = NativeAuthSignInTests.clientId) async throws -> Reply {
        try await client.post("\(Self.base)/initiate", form: [("client_id", clientId), ("username", username), ("challenge_type", types)])
    }

    func challenge(_ client: TestClient, _ token: String, types: String = "oob password redirect") async throws -> Reply {
        try await client.post("\(Self.base)/challenge", form: [("client_id", Self.clientId), ("continuation_token", token),
                                                              ("challenge_type", types)])
    }

    func redeem(_ client: TestClient, _ fields: [(String, String)]) async throws -> Reply {
        try await client.post("\(Self.base)/token", form: [("client_id", Self.clientId), ("scope", Self.scope),
                                                          ("client_info", "true")] + fields)
    }

    @Test func aContinuationTokenIsBoundToItsTenant() async throws {
        var configuration = EmulatorConfiguration.default
        let other = "fabrikamcustomers.onmicrosoft.com"
        configuration.tenants.append(EmulatedTenant(id: "0b7d5c3a-1e2f-4a6b-9c8d-7e6f5a4b3c2d", domains: [other],
                                                    displayName: "Fabrikam Customers", kind: .external))
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let started = try await initiate(client, Self.passwordUser)
        let token = try #require(started.json["continuation_token"] as? String)
        // Another External ID tenant's challenge endpoint does not take it.
        let elsewhere = try await client.post("/\(other)/oauth2/v2.0/challenge",
                                              form: [("client_id", Self.clientId), ("continuation_token", token),
                                                     ("challenge_type", "oob password redirect")])
        #expect(elsewhere.status == 400 && elsewhere.json["error"] as? String == "invalid_grant", "\(elsewhere.text)")
        let challenged = try await challenge(client, token)
        let passwordToken = try #require(challenged.json["continuation_token"] as? String)
        let grant: [(String, String)] = [("client_id", Self.clientId), ("scope", Self.scope), ("grant_type", "password"),
                                         ("continuation_token", passwordToken), ("username", Self.passwordUser),
                                         ("password", "Passw0rd!")]
        // Nor the token endpoint of another tenant, of a workforce tenant, or /common.
        for tenant in [other, emulator.tenant, "common"] {
            let reply = try await client.post("/\(tenant)/oauth2/v2.0/token", form: grant)
            #expect(reply.status == 400 && reply.json["access_token"] == nil, "\(tenant): \(reply.text)")
        }
        // Its own tenant does.
        let signedIn = try await redeem(client, Array(grant.dropFirst(2)))
        #expect(signedIn.status == 200, "\(signedIn.text)")
    }

    @Test func signInWithPassword() async throws {
        let emulator = try await Self.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let started = try await initiate(client, Self.passwordUser)
        #expect(started.status == 200, "\(started.text)")
        let first = try #require(started.json["continuation_token"] as? String)
        let challenged = try await challenge(client, first)
        #expect(challenged.json["challenge_type"] as? String == "password")
        let token = try #require(challenged.json["continuation_token"] as? String)
        #expect(token != first)
        let password: [(String, String)] = [("grant_type", "password"), ("continuation_token", token),
                                            ("username", Self.passwordUser), ("challenge_type", "oob password redirect")]
        let wrong = try await redeem(client, password + [("password", "not-it")])
        #expect(wrong.status == 400)
        #expect(wrong.json["error"] as? String == "invalid_grant")
        #expect((wrong.json["error_codes"] as? [Int])?.first == 50126)
        // The token survives a wrong password, within its lifetime.
        let signedIn = try await redeem(client, password + [("password", "Passw0rd!")])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect(signedIn.json["access_token"] is String)
        #expect(signedIn.json["refresh_token"] is String)
        #expect(signedIn.json["id_token"] is String)
        #expect(signedIn.json["client_info"] is String)
        // A completed flow's token cannot be used again.
        let again = try await redeem(client, password + [("password", "Passw0rd!")])
        #expect(again.json["error"] as? String == "invalid_grant")
        // The old token was replaced by the challenge's.
        let stale = try await challenge(client, first)
        #expect(stale.json["error"] as? String == "invalid_grant")
    }

    @Test func signInWithEmailCode() async throws {
        let emulator = try await Self.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let started = try #require(try await initiate(client, Self.codeUser).json["continuation_token"] as? String)
        let challenged = try await challenge(client, started)
        #expect(challenged.json["challenge_type"] as? String == "oob", "\(challenged.text)")
        #expect(challenged.json["code_length"] as? Int == 8)
        #expect(challenged.json["challenge_channel"] as? String == "email")
        #expect(challenged.json["challenge_target_label"] as? String == "ol***@ex***.org")
        let token = try #require(challenged.json["continuation_token"] as? String)
        let mailbox = try await client.get("/_emulator/native-auth/codes?username=\(Self.codeUser)")
        let sent = try #require((mailbox.json["codes"] as? [[String: Any]])?.last)
        let code = try #require(sent["code"] as? String)
        #expect(code.count == 8 && code.allSatisfy(\.isNumber))
        let wrong = try await redeem(client, [("grant_type", "oob"), ("continuation_token", token), ("oob", "00000000x")])
        #expect(wrong.json["error"] as? String == "invalid_grant")
        #expect(wrong.json["suberror"] as? String == "invalid_oob_value")
        let signedIn = try await redeem(client, [("grant_type", "oob"), ("continuation_token", token), ("oob", code)])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect(signedIn.json["access_token"] is String)
    }

    @Test func theServersErrors() async throws {
        let emulator = try await Self.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let unknown = try await initiate(client, "nobody@example.org")
        #expect(unknown.json["error"] as? String == "user_not_found")
        let noRedirect = try await initiate(client, Self.passwordUser, types: "oob password")
        #expect(noRedirect.json["error"] as? String == "invalid_request")
        #expect((noRedirect.json["error_codes"] as? [Int])?.first == 901007)
        let disabled = try await initiate(client, Self.passwordUser, clientId: EmulatorConfiguration.demoClientId)
        #expect(disabled.json["error"] as? String == "invalid_client")
        #expect(disabled.json["suberror"] as? String == "nativeauthapi_disabled")
        // A password user, an app that can only take codes: the browser.
        let started = try #require(try await initiate(client, Self.passwordUser, types: "oob redirect").json["continuation_token"] as? String)
        let redirect = try await challenge(client, started, types: "oob redirect")
        #expect(redirect.json["challenge_type"] as? String == "redirect")
        // A continuation token past its lifetime.
        let late = try #require(try await initiate(client, Self.codeUser).json["continuation_token"] as? String)
        _ = try await client.post("/_emulator/clock/advance", form: [("seconds", "601")])
        let expired = try await challenge(client, late)
        #expect(expired.json["error"] as? String == "expired_token")
        let forged = try await challenge(client, "not-a-token")
        #expect(forged.json["error"] as? String == "invalid_grant")
    }
}
