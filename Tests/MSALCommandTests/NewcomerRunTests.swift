import Foundation
import MSAL
import MSALTestSupport
import Testing
import MSALEmulator

/// A newcomer's session with the built `msal` and its defaults (no client id, no cache flag, no terminal, no broker):
/// two accounts, logout, switch, the emulator stopped and started again with a new CA, a stale CA file, a tenant that
/// requires a compliant device met through the device code and the paste-back flows, `--broker` with no broker, and
/// a broker setting that falls back. Every step ends without waiting for anyone, with the exit code `msal --help`
/// documents and one actionable line; the steps' durations are printed.
@Suite("A newcomer's run", .serialized)
struct NewcomerRunTests {
    final class Run: @unchecked Sendable {
        let runner: CommandRunner
        var durations: [(String, Double)] = []

        init() throws { runner = try CommandRunner() }

        /// Runs `msal arguments`, bounded (a hang guard, not a time check), recording how long it took.
        func msal(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessOutput {
            let started = ContinuousClock.now
            let output = try await runner.run(arguments, environment: environment, timeout: 120)
            let elapsed = ContinuousClock.now - started
            durations.append((arguments.prefix(2).joined(separator: " "),
                              Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            #expect(!output.timedOut, "msal \(arguments.joined(separator: " ")) did not end")
            return output
        }

        var signIns: [String: Any] {
            let file = runner.home.appendingPathComponent(".local/state/msal/sign-ins.json")
            return (try? JSONSerialization.jsonObject(with: Data(contentsOf: file))) as? [String: Any] ?? [:]
        }
    }

    /// A failure's stderr: exactly one error line, which names what to do.
    static func oneErrorLine(_ output: ProcessOutput, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = output.stderr.split(separator: "\n").filter { $0.hasPrefix("msal: error:") }
        #expect(lines.count == 1, "\(output.stderr)", sourceLocation: sourceLocation)
        for text in expected {
            #expect(lines.first?.contains(text) == true, "missing \(text) in: \(output.stderr)", sourceLocation: sourceLocation)
        }
    }

    static func emulator() async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.lifetimes.deviceCodeInterval = 1
        return try await IdentityEmulator.start(configuration)
    }

    @Test func twoAccountsLogoutSwitchAndAStoppedEmulator() async throws {
        let run = try Run()
        let first = try await Self.emulator()
        var firstStopped = false
        defer { if !firstStopped { Task { await first.stop() } } }
        let authority = "\(first.httpsURL.absoluteString)/contoso.onmicrosoft.com"
        let ca = first.caCertificateURL.path
        let adele = first.username
        let alex = "alex@contoso.onmicrosoft.com"

        // No terminal, no display: the device code flow, saying how long it waits; the emulator approves it.
        let login = try await run.msal(["login", "--authority", authority, "--ca-file", ca])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Waiting up to") && login.stderr.contains("--auto-approve"), "\(login.stderr)")
        await first.updateConfiguration { $0.autoApproveUsername = alex }
        let second = try await run.msal(["login"])   // the record supplies the authority and the CA file
        #expect(second.status == 0 && second.stdout.contains(alex), "\(second.stderr)")

        // Logging out the active account: the other becomes active, with its own settings.
        let logout = try await run.msal(["logout"])
        #expect(logout.status == 0 && logout.stdout.contains("Active account now: \(adele)"), "\(logout.stdout)")
        let status = try #require(try await run.msal(["status", "--json"]).json() as? [String: Any])
        #expect(status["authority"] as? String == authority)
        #expect((status["active_account"] as? [String: Any])?["username"] as? String == adele)
        #expect(try await run.msal(["token"]).status == 0)

        // Switch to an account that signed out: named, with the command that adds it; back to adele keeps her record.
        let gone = try await run.msal(["switch", alex])
        #expect(gone.status == 1)
        Self.oneErrorLine(gone, ["msal login --account \(alex)"])
        #expect(try await run.msal(["switch", adele]).status == 0)
        let records = run.signIns
        let adeleRecord = (records["accounts"] as? [String: [String: Any]])?.values.first { $0["username"] as? String == adele }
        #expect(adeleRecord?["authority"] as? String == authority && adeleRecord?["ca_file"] as? String == ca, "\(records)")
        #expect(records["active"] != nil)

        // The emulator stops and removes its CA file: what needs no network works; a request names the file, the
        // record and the sign-in that recovers.
        await first.stop()
        firstStopped = true
        #expect(!FileManager.default.fileExists(atPath: ca))
        let offlineStatus = try await run.msal(["status"])
        #expect(offlineStatus.status == 0 && offlineStatus.stdout.contains("CA file: \(ca)"), "\(offlineStatus.stdout)\(offlineStatus.stderr)")
        #expect(try await run.msal(["accounts"]).status == 0)
        #expect(try await run.msal(["token"]).status == 0)
        let refresh = try await run.msal(["token", "--force-refresh"])
        #expect(refresh.status == 3)
        Self.oneErrorLine(refresh, [ca, "sign-ins.json", "msal login --authority"])

        // A new emulator, a new CA: the old CA file's path is gone (64); the old CA's content is stale (1, naming it).
        let restarted = try await Self.emulator()
        defer { Task { await restarted.stop() } }
        let newAuthority = "\(restarted.httpsURL.absoluteString)/contoso.onmicrosoft.com"
        let missing = try await run.msal(["login", "--authority", newAuthority, "--ca-file", ca])
        #expect(missing.status == 64)
        Self.oneErrorLine(missing, [ca, "does not exist"])
        let stale = run.runner.home.appendingPathComponent("stale-ca.pem")
        try Data(first.caCertificatePEM.utf8).write(to: stale)
        let untrusted = try await run.msal(["login", "--authority", newAuthority, "--ca-file", stale.path])
        #expect(untrusted.status == 1)
        Self.oneErrorLine(untrusted, ["not signed by the CA in \(stale.path)", "--ca-file"])
        let kept = run.runner.home.appendingPathComponent("ca.pem")   // a copy that outlives the emulator
        try Data(restarted.caCertificatePEM.utf8).write(to: kept)
        let again = try await run.msal(["login", "--authority", newAuthority, "--ca-file", kept.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await run.msal(["token", "--force-refresh"]).status == 0)

        // The credential chain's default scope, Resource Manager by its usual name, is a resource every tenant has.
        let arm = try await run.msal(["token", "--scopes", "https://management.azure.com/.default"])
        #expect(arm.status == 0, "\(arm.stderr)")

        // A graph call with the server gone: the transport failure mapped, with what to try.
        await restarted.stop()
        let graph = try await run.msal(["graph", "/me"])
        #expect(graph.status == 1)
        Self.oneErrorLine(graph, ["Microsoft Graph", "[network: connection_refused]"])
        print("newcomer run, seconds per step: " + run.durations.map { "\($0.0) \(String(format: "%.2f", $0.1))" }.joined(separator: ", "))
    }

    @Test func aCompliantDeviceTenantAndTheBrokerSettings() async throws {
        let run = try Run()
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.lifetimes.deviceCodeInterval = 1
        let index = try #require(configuration.tenants.firstIndex { $0.id == EmulatorConfiguration.demoTenantId })
        configuration.tenants[index].conditionalAccess = .compliantDevice
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let options = ["--authority", "\(emulator.httpsURL.absoluteString)/contoso.onmicrosoft.com",
                       "--ca-file", emulator.caCertificateURL.path]

        // The device code flow under a compliant-device policy: the broker is the way, not a browser; exit 3.
        let deviceCode = try await run.msal(["login", "--device-code"] + options)
        #expect(deviceCode.status == 3)
        Self.oneErrorLine(deviceCode, ["AADSTS53000", "msal login --broker"])
        #expect(!(deviceCode.stderr.split(separator: "\n").first { $0.hasPrefix("msal: error:") } ?? "").contains("browser"),
                "\(deviceCode.stderr)")

        // The paste-back flow (the redirect taken by the listener, as through a forwarded port): the same advice.
        let errors = run.runner.home.appendingPathComponent("paste-back.err")
        let home = run.runner.home
        let environment = ["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path, "PATH": "/usr/bin:/bin"]
        let pasteBack = Task {
            try await ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"),
                                        ["-c", "exec \"$0\" \"$@\" 2>\"\(errors.path)\"", run.runner.binary.path,
                                         "login", "--no-browser"] + options, environment: environment, timeout: 120)
        }
        try await eventually(within: 60, "the authorization URL on stderr") {
            SignInLadderCommandTests.authorizationURL(in: (try? String(contentsOf: errors, encoding: .utf8)) ?? "") != nil
        }
        let url = try #require(SignInLadderCommandTests.authorizationURL(in: try String(contentsOf: errors, encoding: .utf8)))
        let browser = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM])
        let answer = try await browser.send(MSALHTTPRequest(method: "GET", url: url, timeout: 30))
        let location = try #require(answer.headers.first { $0.key.lowercased() == "location" }?.value)
        let redirect = try #require(URL(string: location))
        _ = try? await browser.send(MSALHTTPRequest(method: "GET", url: redirect, timeout: 30))
        var pasted = try await value(of: pasteBack, within: 120)
        pasted.stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(pasted.status == 3, "\(pasted.stderr)")
        Self.oneErrorLine(pasted, ["AADSTS53000", "msal login --broker"])

        // --broker with no broker (no session bus): at once, exit 69, why and what to do.
        let broker = try await run.msal(["login", "--broker"] + options)
        #expect(broker.status == 69)
        Self.oneErrorLine(broker, ["no identity broker answers", "DBUS_SESSION_BUS_ADDRESS", "without --broker"])

        // The broker asked for by the environment: said first, then the sign-in goes on without it (here refused by
        // the policy), and nothing records the broker.
        await emulator.updateConfiguration { configuration in
            for index in configuration.tenants.indices { configuration.tenants[index].conditionalAccess = nil }
        }
        let fallback = try await run.msal(["login", "--device-code"] + options, environment: ["MSAL_BROKER": "1"])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        let said = try #require(fallback.stderr.range(of: "No identity broker answers"))
        #expect(said.lowerBound < (fallback.stderr.range(of: "Waiting up to")?.lowerBound ?? said.lowerBound), "\(fallback.stderr)")
        let status = try #require(try await run.msal(["status", "--json"]).json() as? [String: Any])
        #expect((status["broker"] as? [String: Any])?["in_use"] as? Bool == false, "\(status)")
        print("newcomer run (policies), seconds per step: " + run.durations.map { "\($0.0) \(String(format: "%.2f", $0.1))" }.joined(separator: ", "))
    }
}
