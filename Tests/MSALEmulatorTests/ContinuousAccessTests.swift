import MSALSupport
import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// Continuous access evaluation: `POST /_emulator/revoke`, Graph's claims challenge, and the token that answers it.
@Suite("Continuous access evaluation")
struct ContinuousAccessTests {
    static let cp1 = #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#

    func token(_ client: TestClient, _ emulator: IdentityEmulator, claims: String?) async throws -> [String: Any] {
        var form = [("client_id", emulator.clientId), ("grant_type", "password"), ("username", emulator.username),
                    ("password", emulator.password), ("scope", "openid offline_access User.Read")]
        if let claims { form.append(("claims", claims)) }
        return try await client.post("/\(emulator.tenant)/oauth2/v2.0/token", form: form).json
    }

    @Test func revocationChallengesCP1TokensAndAFreshTokenAnswersIt() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let signIn = try await token(client, emulator, claims: Self.cp1)
        let accessToken = try #require(signIn["access_token"] as? String)
        #expect(Fixture.claims(accessToken)["xms_cc"] as? [String] == ["cp1"])
        #expect(try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"]).status == 200)

        let revoked = try await client.post("/_emulator/revoke", form: [("user", emulator.username)])
        #expect(revoked.status == 200)
        let revokedAt = try #require(revoked.json["revoked_at"] as? Int)
        let challenged = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"])
        #expect(challenged.status == 401)
        let header = try #require(challenged.headers["www-authenticate"])
        #expect(header.contains(#"error="insufficient_claims""#))
        #expect(header.contains("authorization_uri="))
        let encoded = try #require(header.components(separatedBy: #"claims=""#).last?.split(separator: "\"").first)
        let claims = try #require(Data(base64Encoded: String(encoded)).flatMap { String(data: $0, encoding: .utf8) })
        #expect(claims == #"{"access_token":{"nbf":{"essential":true,"value":"\#(revokedAt)"}}}"#)

        // The refresh that carries the challenge's claims (merged with cp1) gets a token Graph accepts.
        let merged = #"{"access_token":{"nbf":{"essential":true,"value":"\#(revokedAt)"},"xms_cc":{"values":["cp1"]}}}"#
        let refreshed = try await client.post("/\(emulator.tenant)/oauth2/v2.0/token", form: [
            ("client_id", emulator.clientId), ("grant_type", "refresh_token"), ("scope", "openid offline_access User.Read"),
            ("refresh_token", signIn["refresh_token"] as? String ?? ""), ("claims", merged),
        ]).json
        let fresh = try #require(refreshed["access_token"] as? String)
        #expect(try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(fresh)"]).status == 200)
        let stats = try await client.get("/_emulator/stats").json
        #expect(stats["claims_challenge_answers"] as? Int == 1)
    }

    @Test func tokensWithoutCP1GetAPlainInvalidToken() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let accessToken = try #require(try await token(client, emulator, claims: nil)["access_token"] as? String)
        #expect(Fixture.claims(accessToken)["xms_cc"] == nil)
        _ = try await client.post("/_emulator/revoke", form: [("user", emulator.username)])
        let refused = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"])
        #expect(refused.status == 401)
        let header = try #require(refused.headers["www-authenticate"])
        #expect(header.contains(#"error="invalid_token""#) && !header.contains("claims="))
        // A token issued after the revocation is accepted.
        let after = try #require(try await token(client, emulator, claims: nil)["access_token"] as? String)
        #expect(try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(after)"]).status == 200)
    }

    @Test func revokingRefreshTokensTooAndUnknownUsers() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let signIn = try await token(client, emulator, claims: Self.cp1)
        #expect(try await client.post("/_emulator/revoke", form: []).status == 400)
        #expect(try await client.post("/_emulator/revoke", form: [("user", "nobody@example.com")]).status == 404)
        let revoked = try await client.post("/_emulator/revoke", form: [("user", emulator.username), ("refresh_tokens", "true")])
        #expect(revoked.json["refresh_tokens_revoked"] as? Bool == true)
        let refresh = try await client.post("/\(emulator.tenant)/oauth2/v2.0/token", form: [
            ("client_id", emulator.clientId), ("grant_type", "refresh_token"), ("scope", "User.Read"),
            ("refresh_token", signIn["refresh_token"] as? String ?? ""),
        ])
        #expect(refresh.json["error"] as? String == "invalid_grant")
    }

    @Test func usersArePagedAndCountedWithConsistencyLevel() async throws {
        let config = EmulatorConfigurationBuilder().application(EmulatedApplication(
            clientId: EmulatorConfiguration.default.defaults.clientId, displayName: "Demo", redirectURIs: ["http://localhost"],
            preConsentedScopes: ["https://graph.microsoft.com/User.ReadBasic.All"]
        )).build()
        let emulator = try await IdentityEmulator.start(config)
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let form = [("client_id", emulator.clientId), ("grant_type", "password"), ("username", emulator.username),
                    ("password", emulator.password), ("scope", "User.ReadBasic.All")]
        let accessToken = try #require(try await client.post("/\(emulator.tenant)/oauth2/v2.0/token", form: form).json["access_token"] as? String)
        let auth = ["Authorization": "Bearer \(accessToken)"]
        let first = try await client.get("/v1.0/users?$top=1", headers: auth)
        #expect((first.json["value"] as? [Any])?.count == 1)
        let next = try #require(first.json["@odata.nextLink"] as? String)
        let second = try await client.get(String(next.dropFirst(emulator.httpURL.absoluteString.count)), headers: auth)
        #expect((second.json["value"] as? [Any])?.count == 1)
        #expect(try await client.get("/v1.0/users?$count=true", headers: auth).status == 400)
        let counted = try await client.get("/v1.0/users?$count=true", headers: auth.merging(["ConsistencyLevel": "eventual"]) { $1 })
        #expect(counted.json["@odata.count"] as? Int ?? 0 >= 2)
        let created = try await client.send("POST", "/v1.0/me/todo/lists", body: Data(#"{"displayName":"Errands"}"#.utf8),
                                            headers: auth.merging(["Content-Type": "application/json"]) { $1 })
        #expect(created.status == 201 && created.json["displayName"] as? String == "Errands")
    }
}
