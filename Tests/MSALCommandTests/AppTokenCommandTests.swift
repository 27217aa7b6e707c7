import Foundation
import MSALEmulator
import Testing
import MSALTestSupport
@testable import MSALCertificates

/// `msal token` for app tokens through the built binary: a client secret (from the environment) against the
/// emulator's daemon app, the cache, and errors without the secret.
@Suite("msal token: app tokens", .serialized)
struct AppTokenCommandTests {
    @Test func aClientSecretGivesAnAppTokenThenACacheHit() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let options = ["--authority", "\(setup.emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                       "--client-id", EmulatorConfiguration.daemonClientId, "--cache", setup.cache.path,
                       "--scopes", "https://graph.microsoft.com/.default", "--json"]
        let first = try await setup.runner.run(["token"] + options, environment: ["MSAL_CLIENT_SECRET": "daemon-secret"])
        #expect(first.status == 0, "\(first.stderr)")
        let object = try #require(try first.json() as? [String: Any])
        #expect(object["token_source"] as? String == "identity_provider")
        #expect(object["tenant_id"] as? String == EmulatorConfiguration.demoTenantId)
        let token = try #require(object["access_token"] as? String)
        #expect(!first.stderr.contains(token))
        let second = try await setup.runner.run(["token"] + options, environment: ["MSAL_CLIENT_SECRET": "daemon-secret"])
        #expect((try second.json() as? [String: Any])?["token_source"] as? String == "cache")
        #expect(try setup.cachedSecrets().contains(token))

        let wrong = try await setup.runner.run(["token", "--client-secret", "wrong-secret-value"] + options + ["--force-refresh"])
        #expect(wrong.status != 0)
        #expect(!wrong.stderr.contains("wrong-secret-value"))
        #expect(wrong.stderr.contains("invalid_client") || wrong.stderr.contains("7000215"))
        let both = try await setup.runner.run(["token", "--client-secret", "x", "--managed-identity", "system"] + options)
        #expect(both.status == 64)
    }
}

/// The server-side examples through their built binaries, on the embedded emulator.
@Suite("Server-side examples", .serialized)
struct ServerExampleTests {
    func sibling(_ name: String) throws -> CommandRunner {
        let msal = try CommandRunner.locateBinary()
        return CommandRunner(binary: msal.deletingLastPathComponent().appendingPathComponent(name),
                             home: try CommandRunner().home)
    }

    @Test func theDaemonRunsOnTheEmulator() async throws {
        let output = try await sibling("daemon").run([])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Graph /v1.0/users lists"))
        #expect(output.stdout.contains("answered from the cache"))
        #expect(!output.stdout.contains("eyJ") && !output.stderr.contains("eyJ"))
    }

    @Test func theMiddleTierAPICallsGraphOnBehalfOfItsCaller() async throws {
        let output = try await sibling("on-behalf-of").run([])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("without a valid token: HTTP 401"))
        #expect(output.stdout.contains("\"calledOnBehalfOf\" : \"adele@contoso.onmicrosoft.com\""))
        #expect(output.stdout.contains("GET /api/me (2): HTTP 200"))
        #expect(!output.stdout.contains("eyJ") && !output.stderr.contains("eyJ"))
    }
}

/// `msal token --certificate` with a PKCS#12 file (made by OpenSSL 3) and its password from the environment, against
/// the emulator's daemon app with that file's certificate registered.
@Suite("msal token: PKCS#12 certificates", .serialized)
struct PKCS12CommandTests {
    static let pfx = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/pkcs12/openssl3-aes256-sha256")

    @Test func aPFXFileGivesAnAppTokenAndAWrongPasswordSaysSo() async throws {
        let container = try PKCS12Container(der: Array(Data(contentsOf: Self.pfx)), password: "Passw0rd!")
        let base64 = Data(try #require(container.certificatesDER.first)).base64EncodedString(options: [.lineLength64Characters])
        let certificate = "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        var configuration = EmulatorConfiguration.default
        let daemon = try #require(configuration.applications.firstIndex { $0.clientId == EmulatorConfiguration.daemonClientId })
        configuration.applications[daemon].certificates.append(certificate)
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let options = ["token", "--certificate", Self.pfx.path,
                       "--authority", "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                       "--client-id", EmulatorConfiguration.daemonClientId,
                       "--cache", runner.home.appendingPathComponent("app.json").path,
                       "--scopes", "https://graph.microsoft.com/.default", "--json"]
        let token = try await runner.run(options, environment: ["MSAL_CLIENT_CERTIFICATE_PASSWORD": "Passw0rd!"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect((try token.json() as? [String: Any])?["token_source"] as? String == "identity_provider")
        let wrong = try await runner.run(options, environment: ["MSAL_CLIENT_CERTIFICATE_PASSWORD": "not-the-password"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("wrong password") && !wrong.stderr.contains("not-the-password"), "\(wrong.stderr)")
    }
}
