#if os(Linux)
import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSALEmulator

/// `msal` and the device's identity broker, against the emulator playing the broker on a private session bus: a
/// tenant that requires a compliant device refuses the browser sign-in with the way out, `msal login --broker`
/// passes, later commands keep using the broker, and `msal status` shows it.
@Suite("msal with the identity broker", .serialized, .enabled(if: PrivateBus.available || PrivateBus.required))
struct BrokerCommandTests {
    /// The emulator of `configuration` (its default user auto-approved), a private bus with the emulated broker on it,
    /// and a command runner whose home holds the emulator's CA file.
    struct Setup {
        let emulator: IdentityEmulator
        let bus: PrivateBus
        let broker: EmulatedIdentityBroker
        let runner: CommandRunner
        let ca: URL

        init(_ configure: (inout EmulatorConfiguration) throws -> Void) async throws {
            var configuration = EmulatorConfiguration.default
            configuration.autoApproveUsername = configuration.defaults.username
            try configure(&configuration)
            emulator = try await IdentityEmulator.start(configuration)
            bus = try await PrivateBus()
            broker = try EmulatedIdentityBroker.start(for: emulator, busAddress: bus.address)
            runner = try CommandRunner()
            ca = runner.home.appendingPathComponent("emulator-ca.pem")
            try Data(emulator.caCertificatePEM.utf8).write(to: ca)
        }

        func stop() {
            broker.stop()
            bus.stop()
        }
    }

    @Test func aCompliantDeviceTenantWorksEndToEndThroughTheBroker() async throws {
        let setup = try await Setup { configuration in
            let index = try #require(configuration.tenants.firstIndex { $0.id == EmulatorConfiguration.demoTenantId })
            configuration.tenants[index].conditionalAccess = .compliantDevice
        }
        defer { setup.stop() }
        let (emulator, bus, runner, ca) = (setup.emulator, setup.bus, setup.runner, setup.ca)
        let common = ["--authority", emulator.authorityURL.absoluteString, "--client-id", emulator.clientId,
                      "--ca-file", ca.path, "--scopes", "User.Read"]
        let env = ["DBUS_SESSION_BUS_ADDRESS": bus.address]

        // Without the broker: Entra's AADSTS53000, and the command that passes.
        let refused = try await runner.run(["login", "--emulator-auto-approve"] + common, environment: env)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("AADSTS53000") && refused.stderr.contains("msal login --broker"), "\(refused.stderr)")

        let login = try await runner.run(["login", "--emulator-auto-approve", "--broker"] + common, environment: env)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("through the identity broker"), "\(login.stdout)")

        // The recorded sign-in keeps the broker: a forced refresh goes to it (no refresh token in the cache).
        let token = try await runner.run(["token", "--force-refresh", "--json"], environment: env)
        #expect(token.status == 0, "\(token.stderr)")
        let metadata = (try token.json() as? [String: Any])?["metadata"] as? [String: Any]
        #expect(metadata?["token_source"] as? String == "broker", "\(token.stdout)")

        // A proof-of-possession token through the broker: the request signed with the broker's key, which the token
        // is bound to; `key_id` names that key, and Graph takes the request.
        let me = emulator.httpsURL.appendingPathComponent("v1.0/me").absoluteString
        let pop = try await runner.run(["token", "--json", "--pop-url", me], environment: env)
        #expect(pop.status == 0, "\(pop.stderr)")
        let popObject = try pop.json() as? [String: Any]
        #expect(popObject?["token_type"] as? String == "Pop", "\(pop.stdout)")
        let signed = try #require(popObject?["access_token"] as? String)
        let keyId = try #require(popObject?["key_id"] as? String)
        let shrClaims = try #require(Base64URL.decode(signed.split(separator: ".")[1]).flatMap {
            try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        let inner = try #require((shrClaims["at"] as? String).flatMap { Base64URL.decode($0.split(separator: ".")[1]) }.flatMap {
            try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect((inner["cnf"] as? [String: Any])?["kid"] as? String == keyId)
        let graph = try await runner.run(["graph", "--pop", "/me"], environment: env)
        #expect(graph.status == 0, "\(graph.stderr)")

        let status = try await runner.run(["status", "--json"], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        let described = (try status.json() as? [String: Any])?["broker"] as? [String: Any]
        #expect(described?["present"] as? Bool == true)
        #expect(described?["in_use"] as? Bool == true)
        #expect(described?["version"] as? String == "2.0.4-emulator")
        #expect(described?["accounts"] as? [String] == [emulator.username])
        let text = try await runner.run(["status"], environment: env)
        #expect(text.stdout.contains("Broker: Microsoft identity broker 2.0.4-emulator"), "\(text.stdout)")

        // No bus at all: status says so.
        let none = try await runner.run(["status", "--json"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(((try none.json() as? [String: Any])?["broker"] as? [String: Any])?["present"] as? Bool == false)
        await emulator.stop()
    }

    /// A sign-in made with `--broker` keeps working through the credential chain's msal-account step once its access
    /// token has expired: the chain asks the broker, as the recorded sign-in says (access tokens here live 60 s,
    /// within the five-minute expiry buffer, so every silent request needs a new one; the cache holds no refresh
    /// token for a brokered account).
    @Test func aBrokeredSignInWorksThroughTheChainAfterItsTokenExpires() async throws {
        let setup = try await Setup { $0.lifetimes.accessToken = 60 }
        defer { setup.stop() }
        let (emulator, bus, runner, ca) = (setup.emulator, setup.bus, setup.runner, setup.ca)
        let env = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let login = try await runner.run(["login", "--emulator-auto-approve", "--broker", "--authority", emulator.authorityURL.absoluteString,
                                          "--client-id", emulator.clientId, "--ca-file", ca.path, "--scopes", "User.Read"],
                                         environment: env)
        #expect(login.status == 0, "\(login.stderr)")
        for _ in 0..<2 {
            let chained = try await runner.run(["token", "--chain", "--chain-steps", "msal-account", "--scopes", "User.Read", "--json"],
                                               environment: env)
            #expect(chained.status == 0, "\(chained.stderr)")
            #expect((try? chained.json() as? [String: Any])?["step"] as? String == "msal account", "\(chained.stdout)")
        }
        await emulator.stop()
    }
}
#endif
