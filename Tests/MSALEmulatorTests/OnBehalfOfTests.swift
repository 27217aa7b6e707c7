import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

@Suite("On-behalf-of flow")
struct OnBehalfOfTests {
    let middleTier = EmulatorConfiguration.middleTierClientId

    @Test func middleTierRedeemsTheUsersTokenForGraph() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let userToken = try await Confidential.userToken(client, emulator)
        let incoming = Fixture.claims(userToken)
        #expect(incoming["aud"] as? String == middleTier)
        #expect(incoming["scp"] as? String == "access_as_user")

        let reply = try await Confidential.onBehalfOf(client, assertion: userToken)
        #expect(reply.status == 200, "\(reply.text)")
        let body = reply.json
        #expect(body["refresh_token"] is String && body["id_token"] is String && body["client_info"] is String)
        let access = Fixture.claims(body["access_token"] as? String ?? "")
        #expect(access["aud"] as? String == EmulatorConfiguration.graphResource)
        #expect(access["azp"] as? String == middleTier && access["azpacr"] as? String == "1")
        #expect((access["scp"] as? String)?.split(separator: " ").contains("User.Read") == true)
        #expect(access["oid"] as? String == incoming["oid"] as? String)
        #expect(access["idtyp"] as? String == "user")
        #expect(Fixture.claims(body["id_token"] as? String ?? "")["aud"] as? String == middleTier)

        let me = try await client.get("/v1.0/me", headers: ["Authorization": "Bearer \(body["access_token"] as? String ?? "")"])
        #expect(me.status == 200 && me.json["userPrincipalName"] as? String == emulator.username)

        // The refresh token it got belongs to the middle tier.
        let refreshed = try await client.post(Confidential.tokenPath, form: [
            ("client_id", middleTier), ("client_secret", "middle-tier-secret"), ("grant_type", "refresh_token"),
            ("refresh_token", body["refresh_token"] as? String ?? ""), ("scope", "User.Read"),
        ])
        #expect(refreshed.status == 200)

        // With a client assertion instead of the secret, and without optional scopes: no refresh or id token.
        #expect(try await Confidential.register(client, .first, clientId: middleTier).status == 200)
        let assertion = try TestCertificate.first.assertion(alg: "PS256", claims: Confidential.claims(emulator, clientId: middleTier))
        let viaCertificate = try await Confidential.onBehalfOf(
            client, assertion: userToken, scope: "https://graph.microsoft.com/User.Read", secret: nil,
            extra: [("requested_token_use", "on_behalf_of"), ("client_assertion_type", Confidential.assertionType), ("client_assertion", assertion)]
        )
        #expect(viaCertificate.status == 200, "\(viaCertificate.text)")
        #expect(viaCertificate.json["refresh_token"] == nil && viaCertificate.json["id_token"] == nil && viaCertificate.json["client_info"] == nil)
    }

    @Test func appTokensCannotBeRedeemed() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let appToken = try await Confidential.clientCredentials(
            client, clientId: EmulatorConfiguration.daemonClientId, secret: "daemon-secret", scope: "api://\(middleTier)/.default"
        ).json["access_token"] as? String ?? ""
        let reply = try await Confidential.onBehalfOf(client, assertion: appToken)
        #expect(reply.status == 400)
        #expect(reply.json["error"] as? String == "unauthorized_client" && Confidential.code(reply) == 7000114)
    }

    @Test func tokensForAnotherAudienceAreRefused() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let graphToken = try await Confidential.userToken(client, emulator, scope: "User.Read")
        let reply = try await Confidential.onBehalfOf(client, assertion: graphToken)
        #expect(reply.status == 400 && reply.json["error"] as? String == "invalid_grant" && Confidential.code(reply) == 500131)
        // The web app is not the audience of a token for the middle tier either.
        let userToken = try await Confidential.userToken(client, emulator)
        let otherApp = try await Confidential.onBehalfOf(client, assertion: userToken, clientId: EmulatorConfiguration.webAppClientId, secret: "emulator-secret")
        #expect(Confidential.code(otherApp) == 500131)
    }

    @Test func expiredForgedOrUnconsentedAssertionsAreRefused() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let userToken = try await Confidential.userToken(client, emulator)

        let unconsented = try await Confidential.onBehalfOf(client, assertion: userToken, scope: "Mail.Read")
        #expect(unconsented.json["error"] as? String == "invalid_grant" && Confidential.code(unconsented) == 65001)
        #expect(unconsented.json["suberror"] as? String == "consent_required")

        let parts = userToken.split(separator: ".")
        let forged = "\(parts[0]).\(parts[1]).\(String(repeating: "A", count: parts[2].count))"
        let badSignature = try await Confidential.onBehalfOf(client, assertion: forged)
        #expect(badSignature.json["error"] as? String == "invalid_grant" && Confidential.code(badSignature) == 50013)
        let garbage = try await Confidential.onBehalfOf(client, assertion: "garbage")
        #expect(garbage.status == 400 && Confidential.code(garbage) == 50027)

        let noUse = try await Confidential.onBehalfOf(client, assertion: userToken, extra: [])
        #expect(noUse.json["error"] as? String == "invalid_request")
        let publicClient = try await Confidential.onBehalfOf(client, assertion: userToken, clientId: emulator.clientId, secret: nil)
        #expect(publicClient.status == 401 && Confidential.code(publicClient) == 7000218)

        emulator.clock.advance(by: 3700)
        defer { emulator.clock.reset() }
        let expired = try await Confidential.onBehalfOf(client, assertion: userToken)
        #expect(expired.status == 400 && expired.json["error"] as? String == "invalid_grant" && Confidential.code(expired) == 500133)
    }
}
