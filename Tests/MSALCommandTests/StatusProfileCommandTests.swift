import Foundation
import Testing
import MSAL
@testable import MSALCommand
import MSALEmulator
import MSALTestSupport

/// `msal status`, the active account and `msal switch`, configuration profiles and `--tenant`, through the built
/// binary against the emulator.
@Suite("msal status, switch and profiles", .serialized)
struct StatusProfileCommandTests {
    @Test("Two accounts: login makes each active, switch changes it, status shows accounts, tokens and the cache tier")
    func statusAndSwitch() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let first = try await setup.msal(["login", "--device-code"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let second = "alex@" + setup.emulator.username.split(separator: "@").last.map(String.init)!
        await setup.emulator.updateConfiguration { $0.autoApproveUsername = second }
        let other = try await setup.msal(["login", "--device-code"])
        #expect(other.status == 0, "stderr: \(other.stderr)")

        // The last sign-in is active: token needs no --account.
        let status = try #require(try await setup.msal(["status", "--json"]).json() as? [String: Any])
        let accounts = try #require(status["accounts"] as? [[String: Any]])
        #expect(accounts.count == 2)
        #expect((status["active_account"] as? [String: Any])?["username"] as? String == second)
        let active = try #require(accounts.first { $0["active"] as? Bool == true })
        #expect(active["username"] as? String == second)
        #expect(active["has_refresh_token"] as? Bool == true)
        let tokens = try #require(active["access_tokens"] as? [[String: Any]])
        #expect(tokens.contains { ($0["scopes"] as? [String] ?? []).contains { $0.hasSuffix("User.Read") } && ($0["expires_in"] as? Int ?? 0) > 0 })
        let cache = try #require(status["cache"] as? [String: Any])
        #expect(cache["protection"] as? String == "plaintext" && cache["encrypted"] as? Bool == false)
        #expect(cache["location"] as? String == setup.cache.path)
        let text = try await setup.msal(["status"])
        #expect(text.stdout.contains("* \(second)") && text.stdout.contains("(active)"))
        #expect(text.stdout.contains("refresh token: yes"))
        for secret in try setup.cachedSecrets() { #expect(!text.stdout.contains(secret) && !text.stderr.contains(secret)) }

        // switch with no argument and two accounts: the other one.
        let switched = try await setup.msal(["switch", "--json"])
        #expect(switched.status == 0, "stderr: \(switched.stderr)")
        #expect(((try switched.json() as? [String: Any])?["active_account"] as? [String: Any])?["username"] as? String
                == setup.emulator.username)
        let token = try await setup.msal(["token", "--json"])
        #expect(((try token.json() as? [String: Any])?["account"] as? [String: Any])?["username"] as? String == setup.emulator.username)
        let named = try await setup.msal(["switch", second])
        #expect(named.status == 0 && named.stdout.contains(second))
        let unknown = try await setup.msal(["switch", "nobody@example.com"])
        #expect(unknown.status == 1 && unknown.stderr.contains("msal login --account nobody@example.com"))

        // Signing out the active account leaves none active: the remaining one is used as the only one.
        let logout = try await setup.msal(["logout"])
        #expect(logout.status == 0 && logout.stdout.contains(second))
        let remaining = try await setup.msal(["token", "--json"])
        #expect(remaining.status == 0, "stderr: \(remaining.stderr)")
    }

    @Test("A profile of the configuration file supplies client id, authority and cache; flags win; errors are usage errors")
    func profiles() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let configDirectory = setup.runner.home.appendingPathComponent("config/msal")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        let configFile = configDirectory.appendingPathComponent("config.json")
        let profile: [String: Any] = [
            "client_id": setup.emulator.clientId,
            "authority": "\(setup.emulator.httpURL.absoluteString)/common",
            "tenant": EmulatorConfiguration.demoTenantId,
            "cache": setup.cache.path, "scopes": ["User.Read"],
            "graph_endpoint": setup.emulator.httpURL.absoluteString,
        ]
        try JSONSerialization.data(withJSONObject: ["default_profile": "emu", "profiles": ["emu": profile]])
            .write(to: configFile)
        let environment = ["XDG_CONFIG_HOME": setup.runner.home.appendingPathComponent("config").path]

        let login = try await setup.runner.run(["login", "--device-code"], environment: environment)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let status = try #require(try await setup.runner.run(["status", "--json"], environment: environment).json() as? [String: Any])
        #expect(status["profile"] as? String == "emu")
        #expect(status["client_id"] as? String == setup.emulator.clientId)
        // --tenant replaced the profile authority's tenant segment.
        #expect(status["authority"] as? String == "\(setup.emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)")
        #expect((status["accounts"] as? [Any])?.count == 1)
        let graph = try await setup.runner.run(["graph", "/me"], environment: environment)
        #expect(graph.status == 0, "stderr: \(graph.stderr)")

        // A flag wins over the profile: another cache file is empty.
        let other = try await setup.runner.run(["status", "--json", "--cache", setup.runner.home.appendingPathComponent("other.json").path],
                                               environment: environment)
        #expect(((try other.json() as? [String: Any])?["accounts"] as? [Any])?.isEmpty == true)

        let missing = try await setup.runner.run(["status", "--profile", "nope"], environment: environment)
        #expect(missing.status == 64 && missing.stderr.contains("No profile \"nope\"") && missing.stderr.contains("emu"))
        try Data(#"{"profiles":{"emu":{"client_id":7}}}"#.utf8).write(to: configFile)
        let wrongType = try await setup.runner.run(["status"], environment: environment)
        #expect(wrongType.status == 64 && wrongType.stderr.contains("emu.client_id must be a non-empty string"))
        try Data("{not json".utf8).write(to: configFile)
        let broken = try await setup.runner.run(["status"], environment: environment)
        #expect(broken.status == 64 && broken.stderr.contains(configFile.path) && broken.stderr.contains("not a JSON object"))
    }

    @Test("The sign-in hint names the exact command, with the scopes that were asked for")
    func hintNamesTheExactCommand() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let token = try await setup.msal(["token", "--scopes", "Mail.Read"])
        #expect(token.status == 3)
        #expect(token.stderr.contains("Sign in with `msal login --scopes Mail.Read`."), "\(token.stderr)")
    }

    @Test func tenantReplacesTheAuthoritysTenant() {
        #expect(CommonOptions.authority("https://login.microsoftonline.com/common", withTenant: "contoso.com")
                == "https://login.microsoftonline.com/contoso.com")
        #expect(CommonOptions.authority("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
                                        withTenant: "x") == nil)
        #expect(CommonOptions.authority("https://login.microsoftonline.com", withTenant: "x") == nil)
    }
}

/// `~` in a path the user gives is their `$HOME`, as a shell reads it (Foundation on Linux would use the account's
/// home in the password database).
@Suite("msal expands ~ against $HOME")
struct TildeCommandTests {
    @Test func aTildePathIsUnderHOME() async throws {
        let runner = try CommandRunner()
        let status = try await runner.run(["status", "--json", "--cache", "~/tilde.json",
                                           "--client-id", "04b07795-8ddb-461a-bbee-02f9e1bf7b46"])
        #expect(status.status == 0, "\(status.stderr)")
        let cache = (try status.json() as? [String: Any])?["cache"] as? [String: Any]
        #expect(cache?["location"] as? String == runner.home.appendingPathComponent("tilde.json").path)
    }
}

/// `msal status` on one cloud names the cloud of an account signed in on another one in the same cache.
@Suite("msal status and other clouds")
struct StatusOtherCloudTests {
    @Test func anAccountOfAnotherCloudSaysWhereItIs() async throws {
        let runner = try CommandRunner()
        let cache = runner.home.appendingPathComponent("clouds.json")
        let home = "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47"
        let client = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
        let document: [String: Any] = [
            "Account": ["\(home)-login.microsoftonline.us-72f988bf-86f1-41af-91ab-2d7cd011db47": [
                "home_account_id": home, "environment": "login.microsoftonline.us",
                "realm": "72f988bf-86f1-41af-91ab-2d7cd011db47", "local_account_id": "00000000-0000-0000-66f3-3332eca7ea81",
                "username": "gov@contoso.example", "authority_type": "MSSTS",
            ]],
            "RefreshToken": ["\(home)-login.microsoftonline.us-refreshtoken-\(client)--": [
                "credential_type": "RefreshToken", "secret": "RT", "home_account_id": home,
                "environment": "login.microsoftonline.us", "client_id": client, "target": "",
            ]],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: cache)
        let status = try await runner.run(["status", "--cache", cache.path, "--client-id", client,
                                           "--authority", "https://login.microsoftonline.com/common"])
        #expect(status.status == 0, "\(status.stderr)")
        let line = status.stdout.split(separator: "\n").first { $0.contains("gov@contoso.example") } ?? ""
        #expect(line.hasSuffix("(on login.microsoftonline.us)"), "\(status.stdout)")
    }
}
