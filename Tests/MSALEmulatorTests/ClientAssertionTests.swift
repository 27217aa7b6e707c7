import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

@Suite("Client assertions signed with registered certificates")
struct ClientAssertionTests {
    let daemon = EmulatorConfiguration.daemonClientId

    /// An emulator whose daemon has `TestCertificate.first` registered through the control endpoint.
    func start(_ config: EmulatorConfiguration = .default) async throws -> (IdentityEmulator, TestClient) {
        let emulator = try await IdentityEmulator.start(config)
        let client = TestClient(emulator)
        let registered = try await Confidential.register(client, .first, clientId: daemon)
        #expect(registered.status == 200)
        return (emulator, client)
    }

    @Test func controlEndpointRegistersCertificates() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await Confidential.register(client, .first, clientId: daemon)
        #expect(reply.status == 200)
        #expect(reply.json["x5t#S256"] as? String == TestCertificate.first.x5tS256)
        #expect(reply.json["x5t"] as? String == TestCertificate.first.x5t)
        let junk = try await client.send("POST", "/_emulator/applications/\(daemon)/certificates", body: Data("not a certificate".utf8))
        #expect(junk.status == 400 && junk.json["error"] as? String == "invalid_request" && junk.json["error_description"] is String)
        let unknown = try await Confidential.register(client, .first, clientId: "00000000-1111-2222-3333-444444444444")
        #expect(unknown.status == 404)
        let config = try await client.get("/_emulator/config").json
        let apps = config["applications"] as? [[String: Any]] ?? []
        let certificates = apps.first { $0["clientId"] as? String == daemon }?["certificates"] as? [String]
        #expect(certificates?.count == 1)
        // The in-process API registers the same way (and a repeat is not a second entry).
        let again = try await emulator.registerCertificate(TestCertificate.first.pem, clientId: daemon)
        #expect(again?.x5t == TestCertificate.first.x5t)
    }

    @Test(arguments: [("RS256", "x5t"), ("RS256", "x5t#S256"), ("PS256", "x5t#S256"), ("PS256", "x5t")])
    func signedAssertionAuthenticatesTheApp(alg: String, thumbprint: String) async throws {
        let (emulator, client) = try await start()
        defer { Task { await emulator.stop() } }
        let assertion = try TestCertificate.first.assertion(alg: alg, thumbprint: thumbprint, claims: Confidential.claims(emulator, clientId: daemon))
        let reply = try await Confidential.clientCredentials(client, clientId: daemon, assertion: assertion)
        #expect(reply.status == 200, "\(reply.text)")
        let claims = Fixture.claims(reply.json["access_token"] as? String ?? "")
        #expect(claims["azpacr"] as? String == "2" && claims["roles"] as? [String] == ["User.Read.All"])
    }

    @Test func audienceMayNameTheTenantByIdDomainOrIssuer() async throws {
        let (emulator, client) = try await start()
        defer { Task { await emulator.stop() } }
        let base = emulator.httpURL.absoluteString
        let tenantId = EmulatorConfiguration.demoTenantId
        for audience in ["\(base)/\(tenantId)/oauth2/v2.0/token", "\(base)/contoso.com/oauth2/v2.0/token", "\(base)/\(tenantId)/v2.0"] {
            var claims = Confidential.claims(emulator, clientId: daemon)
            claims["aud"] = audience
            let reply = try await Confidential.clientCredentials(client, clientId: daemon, assertion: try TestCertificate.first.assertion(claims: claims))
            #expect(reply.status == 200, "\(audience): \(reply.text)")
        }
        // Without client_id, the assertion's subject names the client (RFC 7523).
        let assertion = try TestCertificate.first.assertion(claims: Confidential.claims(emulator, clientId: daemon))
        let anonymous = try await client.post(Confidential.tokenPath, form: [
            ("grant_type", "client_credentials"), ("scope", Confidential.graphDefault),
            ("client_assertion_type", Confidential.assertionType), ("client_assertion", assertion),
        ])
        #expect(anonymous.status == 200)
    }

    /// One assertion with one thing wrong, and the AADSTS code and HTTP status it must get.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int
        let code: Int
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "unknown thumbprint", status: 401, code: 700027),
        Refusal(name: "wrong key", status: 401, code: 700027),
        Refusal(name: "bad signature", status: 401, code: 700027),
        Refusal(name: "expired", status: 401, code: 700024),
        Refusal(name: "not yet valid", status: 401, code: 700024),
        Refusal(name: "lifetime over a day", status: 401, code: 700024),
        Refusal(name: "wrong aud", status: 401, code: 700023),
        Refusal(name: "other issuer", status: 401, code: 700021),
        Refusal(name: "alg none", status: 401, code: 5002738),
        Refusal(name: "alg HS256", status: 401, code: 5002738),
        Refusal(name: "no thumbprint", status: 401, code: 5002723),
        Refusal(name: "no jti", status: 400, code: 90014),
        Refusal(name: "malformed", status: 400, code: 50027),
    ]

    @Test(arguments: refusals)
    func flawedAssertionsAreRefused(_ refusal: Refusal) async throws {
        let (emulator, client) = try await start()
        defer { Task { await emulator.stop() } }
        let certificate = TestCertificate.first
        var claims = Confidential.claims(emulator, clientId: daemon)
        let now = Int(Date().timeIntervalSince1970)
        var assertion: String
        switch refusal.name {
        case "unknown thumbprint": assertion = try TestCertificate.second.assertion(claims: claims)
        case "wrong key": assertion = try certificate.assertion(claims: claims, signingKey: TestCertificate.second.key)
        case "bad signature":
            let good = try certificate.assertion(claims: claims)
            let signature = good.split(separator: ".")[2]
            let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
            assertion = good.split(separator: ".")[0...1].joined(separator: ".") + "." + flipped
        case "expired":
            claims["iat"] = now - 7200; claims["nbf"] = now - 7200; claims["exp"] = now - 3600
            assertion = try certificate.assertion(claims: claims)
        case "not yet valid":
            claims["nbf"] = now + 3600; claims["exp"] = now + 4200
            assertion = try certificate.assertion(claims: claims)
        case "lifetime over a day":
            claims["exp"] = now + 2 * 86_400
            assertion = try certificate.assertion(claims: claims)
        case "wrong aud":
            claims["aud"] = "https://login.microsoftonline.com/\(EmulatorConfiguration.demoTenantId)/oauth2/v2.0/token"
            assertion = try certificate.assertion(claims: claims)
        case "other issuer":
            claims["iss"] = EmulatorConfiguration.middleTierClientId
            assertion = try certificate.assertion(claims: claims)
        case "alg none":
            let unsigned = try certificate.assertion(header: ["alg": "none"], claims: claims)
            assertion = unsigned.split(separator: ".")[0...1].joined(separator: ".") + "."
        case "alg HS256": assertion = try certificate.assertion(header: ["alg": "HS256"], claims: claims)
        case "no thumbprint": assertion = try certificate.assertion(header: ["x5t#S256": nil], claims: claims)
        case "no jti":
            claims["jti"] = nil as String?
            assertion = try certificate.assertion(claims: claims)
        default: assertion = "not-a-jwt"
        }
        let reply = try await Confidential.clientCredentials(client, clientId: daemon, assertion: assertion)
        #expect(reply.status == refusal.status, "\(reply.text)")
        #expect(Confidential.code(reply) == refusal.code, "\(reply.text)")
        if refusal.status == 401 { #expect(reply.json["error"] as? String == "invalid_client") }
        #expect(!reply.text.contains(assertion.suffix(20)))
    }

    @Test func replayedJtiIsRefusedWhenConfigured() async throws {
        var strict = EmulatorConfiguration.default
        strict.rejectsReplayedClientAssertions = true
        let (emulator, client) = try await start(strict)
        defer { Task { await emulator.stop() } }
        let assertion = try TestCertificate.first.assertion(claims: Confidential.claims(emulator, clientId: daemon))
        #expect(try await Confidential.clientCredentials(client, clientId: daemon, assertion: assertion).status == 200)
        let replay = try await Confidential.clientCredentials(client, clientId: daemon, assertion: assertion)
        #expect(replay.status == 401 && replay.json["error"] as? String == "invalid_client" && Confidential.code(replay) == 50027)
        #expect((replay.json["error_description"] as? String)?.contains("'jti' was already used") == true)

        // The default, as Entra ID: a reused assertion is accepted.
        let (second, secondClient) = try await start(EmulatorConfiguration.default)
        defer { Task { await second.stop() } }
        let reused = try TestCertificate.first.assertion(claims: Confidential.claims(second, clientId: daemon))
        #expect(try await Confidential.clientCredentials(secondClient, clientId: daemon, assertion: reused).status == 200)
        #expect(try await Confidential.clientCredentials(secondClient, clientId: daemon, assertion: reused).status == 200)
    }

    @Test func secretAndAssertionTogetherOrAWrongTypeAreRefused() async throws {
        let (emulator, client) = try await start()
        defer { Task { await emulator.stop() } }
        let assertion = try TestCertificate.first.assertion(claims: Confidential.claims(emulator, clientId: daemon))
        let both = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret", assertion: assertion)
        #expect(both.status == 400 && both.json["error"] as? String == "invalid_request")
        let wrongType = try await client.post(Confidential.tokenPath, form: [
            ("client_id", daemon), ("grant_type", "client_credentials"), ("scope", Confidential.graphDefault),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"), ("client_assertion", assertion),
        ])
        #expect(wrongType.status == 400 && Confidential.code(wrongType) == 50027)
    }

    @Test func confidentialAuthorizationCodeTakesAnAssertionAndKeepsPKCE() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let webApp = EmulatorConfiguration.webAppClientId
        #expect(try await Confidential.register(client, .first, clientId: webApp).status == 200)
        let redirect = "http://localhost/callback"
        let page = try await client.get(
            "/\(Confidential.tenant)/oauth2/v2.0/authorize?client_id=\(webApp)&response_type=code&redirect_uri=\(URLText.encode(redirect))"
                + "&scope=\(URLText.encode("openid offline_access User.Read"))&state=s&code_challenge=\(Fixture.challenge)&code_challenge_method=S256"
        )
        let signedIn = try await client.post("/login", form: [
            ("ctx", page.ctx ?? ""), ("step", "signin"), ("username", emulator.username), ("password", emulator.password), ("action", "signin"),
        ])
        let code = try #require(signedIn.redirectParameters["code"])
        func redeem(verifier: String) async throws -> Reply {
            let assertion = try TestCertificate.first.assertion(claims: Confidential.claims(emulator, clientId: webApp))
            return try await client.post(Confidential.tokenPath, form: [
                ("client_id", webApp), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                ("code_verifier", verifier), ("client_assertion_type", Confidential.assertionType), ("client_assertion", assertion),
            ])
        }
        let wrong = try await redeem(verifier: String(repeating: "b", count: 43))
        #expect(wrong.status == 400 && Confidential.code(wrong) == 501481)
        let tokens = try await redeem(verifier: Fixture.verifier)
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens.json["refresh_token"] is String && tokens.json["id_token"] is String)
        #expect(Fixture.claims(tokens.json["access_token"] as? String ?? "")["azpacr"] as? String == "2")
    }
}
