import Foundation
import Testing
import MSALEmulator
import MSALTestSupport

/// `msal token --authority` naming another host than the sign-in's never gets the sign-in's tokens, and the cache
/// files accounts under the host name (no port), as MSAL for Python does.
@Suite("msal tool: tokens stay within their authority", .serialized)
struct AuthorityIsolationCommandTests {
    @Test func tokenForAnotherHostIsNotTheCachedOne() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let login = try await setup.msal(["login", "--device-code"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let own = try await setup.msal(["token"])
        #expect(own.status == 0, "stderr: \(own.stderr)")
        let token = own.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!token.isEmpty)

        // The same emulator reached as `localhost` is another authority host: nothing cached for it.
        let port = try #require(setup.emulator.httpURL.port)
        let other = "http://localhost:\(port)/\(EmulatorConfiguration.demoTenantId)"
        var arguments = ["token", "--authority", other, "--client-id", setup.emulator.clientId, "--cache", setup.cache.path]
        let crossed = try await setup.runner.run(arguments)
        #expect(crossed.status == 3, "stdout: \(crossed.stdout) stderr: \(crossed.stderr)")
        #expect(!crossed.stdout.contains(token))
        arguments.append("--force-refresh")
        let forced = try await setup.runner.run(arguments)
        #expect(forced.status == 3, "stdout: \(forced.stdout) stderr: \(forced.stderr)")
        #expect(forced.stdout.isEmpty)

        // The cache names the host without its port.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: setup.cache)) as? [String: Any])
        let accounts = try #require(document["Account"] as? [String: [String: Any]])
        #expect(!accounts.isEmpty)
        #expect(accounts.values.allSatisfy { $0["environment"] as? String == "127.0.0.1" })
    }
}
