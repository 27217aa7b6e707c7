import Foundation
import MSALSupport
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// Workload identity federation: the emulator's own issuer mints tokens, and an app's federated credentials accept
/// them as client assertions.
@Suite("Federated credentials (workload identity)")
struct FederatedCredentialTests {
    let daemon = EmulatorConfiguration.daemonClientId
    let subject = EmulatorConfiguration.daemonFederatedSubject

    func mint(_ client: TestClient, _ body: [String: Any]) async throws -> Reply {
        try await client.send("POST", "/_emulator/federated-tokens", body: try JSONSerialization.data(withJSONObject: body),
                              headers: ["Content-Type": "application/json"])
    }

    @Test func theIssuerMintsTokensAndPublishesItsKeys() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await mint(client, ["subject": subject])
        #expect(reply.status == 200, "\(reply.text)")
        let issuer = emulator.httpURL.absoluteString + "/federated-issuer"
        #expect(reply.json["issuer"] as? String == issuer)
        let token = try #require(reply.json["token"] as? String)
        let claims = Fixture.claims(token)
        #expect(claims["iss"] as? String == issuer && claims["sub"] as? String == subject)
        #expect(claims["aud"] as? [String] == [EmulatorConfiguration.federatedTokenAudience])
        #expect((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0) == 3600)

        let discovery = try await client.get("/federated-issuer/.well-known/openid-configuration")
        #expect(discovery.json["issuer"] as? String == issuer)
        #expect(discovery.json["jwks_uri"] as? String == issuer + "/keys")
        let keys = try await client.get("/federated-issuer/keys").json["keys"] as? [[String: Any]] ?? []
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        let kid = (try JSONSerialization.jsonObject(with: header) as? [String: Any])?["kid"] as? String
        #expect(keys.contains { $0["kid"] as? String == kid })
        // The tenant's keys and the issuer's keys differ: a federated token is no Entra token.
        let tenantKeys = try await client.get("/\(Confidential.tenant)/discovery/v2.0/keys").json["keys"] as? [[String: Any]] ?? []
        #expect(!tenantKeys.contains { $0["kid"] as? String == kid })

        let bad = try await client.send("POST", "/_emulator/federated-tokens", body: Data("{}".utf8))
        #expect(bad.status == 400 && bad.json["error"] as? String == "invalid_request")
    }

    @Test func aTrustedTokenAuthenticatesTheApp() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        // Minted in process and through the control endpoint: both are the emulator's issuer.
        var tokens = [try await emulator.federatedToken(subject: subject)]
        tokens.append(try #require(try await mint(client, ["subject": subject, "lifetime": 600]).json["token"] as? String))
        for token in tokens {
            let reply = try await Confidential.clientCredentials(client, clientId: daemon, assertion: token)
            #expect(reply.status == 200, "\(reply.text)")
            let claims = Fixture.claims(reply.json["access_token"] as? String ?? "")
            #expect(claims["appid"] as? String == daemon && claims["appidacr"] as? String == "2" && claims["azpacr"] as? String == "2")
            #expect(claims["roles"] as? [String] == ["User.Read.All"])
        }
        // The same token may be presented again while it is valid, as a projected token file is.
        #expect(try await Confidential.clientCredentials(client, clientId: daemon, assertion: tokens[0]).status == 200)
    }

    /// A federated assertion with one thing wrong, and the AADSTS code it must get.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let code: Int
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "other subject", code: 700213),
        Refusal(name: "other audience", code: 700212),
        Refusal(name: "other issuer", code: 700211),
        Refusal(name: "app without federated credentials", code: 70021),
        Refusal(name: "forged signature", code: 50013),
        Refusal(name: "unknown key", code: 7000272),
        Refusal(name: "issuer the emulator cannot fetch keys of", code: 7000272),
        Refusal(name: "expired", code: 700024),
        Refusal(name: "alg HS256", code: 5002738),
    ]

    @Test(arguments: refusals)
    func untrustedTokensAreRefused(_ refusal: Refusal) async throws {
        let external = "https://token.actions.githubusercontent.com"
        var config = EmulatorConfiguration.default
        if let index = config.applications.firstIndex(where: { $0.clientId == daemon }) {
            config.applications[index].federatedCredentials.append(FederatedCredential(issuer: external, subject: "repo:contoso/app:ref:refs/heads/main"))
        }
        let emulator = try await IdentityEmulator.start(config)
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let issuer = emulator.federatedIssuerURL.absoluteString
        let good = try await emulator.federatedToken(subject: subject)
        let kid = try #require(try JSONSerialization.jsonObject(with: Base64URL.decode(String(good.split(separator: ".")[0])) ?? Data()) as? [String: Any])["kid"] as? String
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any?] = ["iss": issuer, "sub": subject, "aud": EmulatorConfiguration.federatedTokenAudience, "iat": now, "exp": now + 600]
        func signed(kid: String? = kid, alg: String = "RS256") throws -> String {
            try TestCertificate.first.assertion(alg: alg, header: ["x5t#S256": nil, "kid": kid], claims: claims)
        }
        var clientId = daemon
        let assertion: String
        switch refusal.name {
        case "other subject": assertion = try await emulator.federatedToken(subject: "system:serviceaccount:default:other")
        case "other audience": assertion = try await emulator.federatedToken(subject: subject, audience: "api://somewhere-else")
        case "other issuer":
            claims["iss"] = "https://kubernetes.default.svc.cluster.local"
            assertion = try signed()
        case "app without federated credentials":
            clientId = EmulatorConfiguration.middleTierClientId
            assertion = good
        case "forged signature": assertion = try signed()
        case "unknown key": assertion = try signed(kid: "not-a-published-key")
        case "issuer the emulator cannot fetch keys of":
            claims["iss"] = external
            claims["sub"] = "repo:contoso/app:ref:refs/heads/main"
            assertion = try signed()
        case "expired":
            assertion = try await emulator.federatedToken(subject: subject, lifetime: 60)
            emulator.clock.advance(by: 3600)
        default: assertion = try signed(alg: "HS256")
        }
        let reply = try await Confidential.clientCredentials(client, clientId: clientId, assertion: assertion)
        #expect(reply.status == 401, "\(reply.text)")
        #expect(reply.json["error"] as? String == "invalid_client")
        #expect(Confidential.code(reply) == refusal.code, "\(reply.text)")
        #expect(!reply.text.contains(assertion.suffix(20)))
        if refusal.code == 700213 {
            #expect((reply.json["error_description"] as? String)?.contains("system:serviceaccount:default:other") == true)
        }
    }

    @Test func configurationDecodesFederatedCredentialsWithTheDefaultAudience() throws {
        let json = #"{"applications": [{"clientId": "abc", "federatedCredentials": [{"issuer": "https://issuer.example", "subject": "s"}]}]}"#
        let config = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data(json.utf8))
        let app = try #require(config.applications.first)
        #expect(!app.isPublicClient)
        #expect(app.federatedCredentials == [FederatedCredential(issuer: "https://issuer.example", subject: "s")])
        #expect(app.federatedCredentials.first?.audiences == ["api://AzureADTokenExchange"])
        let daemon = EmulatorConfiguration.default.applications.first { $0.clientId == EmulatorConfiguration.daemonClientId }
        #expect(daemon?.federatedCredentials.first?.issuer == EmulatorConfiguration.emulatorFederatedIssuer)
        #expect(daemon?.federatedCredentials.first?.subject == "system:serviceaccount:default:daemon")
    }
}
