import Foundation
import MSALTestSupport
import Testing
import MSALEmulator

/// The first hour with `msal`, as a new user meets it: sign in once with what the sign-in needs, then every command
/// works without flags; no client id means Microsoft's first-party public client and `{Graph}/.default`; Graph is the
/// authority's cloud's (here the emulator's own); a cached token for a domain-named tenant costs no request; the
/// credential chain finds the sign-in; the cache says how long a sign-in lasts.
@Suite("msal's first hour", .serialized)
struct FirstHourCommandTests {
    @Test func oneLoginThenEveryCommandWithoutFlagsAndOffline() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        var stopped = false
        defer { if !stopped { Task { await emulator.stop() } } }
        let runner = try CommandRunner()
        let ca = runner.home.appendingPathComponent("emulator-ca.pem")
        try Data(emulator.caCertificatePEM.utf8).write(to: ca)
        // The tenant by its domain, over HTTPS with the emulator's CA; no client id, no cache, no scopes.
        let authority = "\(emulator.httpsURL.absoluteString)/contoso.onmicrosoft.com"

        let login = try await runner.run(["login", "--authority", authority, "--ca-file", ca.path, "--emulator-auto-approve"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("04b07795-8ddb-461a-bbee-02f9e1bf7b46") && login.stderr.contains("https://graph.microsoft.com/.default"))
        #expect(login.stderr.contains("key-file") && login.stderr.contains("across reboots"), "\(login.stderr)")

        let status = try await runner.run(["status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let object = try status.json() as? [String: Any]
        #expect(object?["client_id"] as? String == "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
        #expect(object?["authority"] as? String == authority)
        let cache = object?["cache"] as? [String: Any]
        #expect(cache?["protection"] as? String == "key-file")
        #expect((cache?["lifetime"] as? String)?.contains("reboots") == true)

        let token = try await runner.run(["token"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stdout.hasPrefix("eyJ"))

        // Graph is the emulator's own (the authority's origin), reached with the recorded CA file.
        let me = try await runner.run(["graph", "/me"])
        #expect(me.status == 0, "\(me.stderr)")
        #expect((try me.json() as? [String: Any])?["userPrincipalName"] as? String == emulator.username)

        // An individual scope with the first-party client: Entra's AADSTS65002, and what to do instead.
        let individual = try await runner.run(["token", "--scopes", "Mail.Read"])
        #expect(individual.status != 0)
        #expect(individual.stderr.contains("AADSTS65002") && individual.stderr.contains("/.default"), "\(individual.stderr)")

        await emulator.stop()
        stopped = true
        // Offline: the domain-named tenant's cached token costs no request, through the tool and the chain.
        let offline = try await runner.run(["token", "--debug"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(!offline.stderr.contains("HTTP GET") && !offline.stderr.contains("HTTP POST"), "\(offline.stderr)")
        let chain = try await runner.run(["token", "--chain", "--chain-steps", "msal-account", "--json",
                                          "--scopes", "https://graph.microsoft.com/.default"])
        #expect(chain.status == 0, "\(chain.stderr)")
        #expect(chain.stderr.contains("msal account"))

        // Flags still win over the record: another client id is not mixed with it.
        let other = try await runner.run(["status", "--json", "--client-id", emulator.clientId])
        #expect((try other.json() as? [String: Any])?["authority"] as? String == "https://login.microsoftonline.com/common")

        let logout = try await runner.run(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let after = try await runner.run(["status", "--json"])
        #expect((try after.json() as? [String: Any])?["authority"] as? String == "https://login.microsoftonline.com/common")
    }
}

extension FirstHourCommandTests {
    /// Every example of `msal graph --help` runs against the emulator as printed (with the app's client id).
    @Test func graphHelpExamplesRunAgainstTheEmulator() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let help = try await setup.runner.run(["graph", "--help"])
        // Lines ending with a backslash continue on the next one, as in a shell.
        let joined = help.stdout.replacingOccurrences(of: " \\\n", with: " ")
        let examples = joined.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("msal graph") }
        #expect(examples.count >= 4)
        let login = try await setup.msal(["login", "--emulator-auto-approve", "--scopes", "User.Read", "User.ReadBasic.All", "Tasks.ReadWrite"])
        #expect(login.status == 0, "\(login.stderr)")
        for example in examples {
            let words = ShellWords.split(String(example.dropFirst("msal ".count)))
            let result = try await setup.msal(words)
            #expect(result.status == 0, "\(example): \(result.stderr)")
        }
    }
}

/// The words a POSIX shell makes of a command line without expansions: single quotes keep everything, a backslash
/// keeps the next character, spaces separate.
enum ShellWords {
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escaped = false
        for character in line {
            if escaped { current.append(character); escaped = false; inWord = true; continue }
            if quoted {
                if character == "'" { quoted = false } else { current.append(character) }
                continue
            }
            switch character {
            case "\\": escaped = true
            case "'": quoted = true; inWord = true
            case " ":
                if inWord { words.append(current); current = ""; inWord = false }
            default: current.append(character); inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
