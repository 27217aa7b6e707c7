import Foundation
import MSALTestSupport
import Testing
import MSALEmulator

/// The `msal` tool through its built binary: output, exit codes, JSON, and no secrets on stderr.
@Suite("msal command-line tool", .serialized)
struct CommandLineTests {
    /// An emulator with auto-approval and a 1 s device code interval, and the options pointing the tool at it.
    struct Setup {
        let emulator: IdentityEmulator
        let runner: CommandRunner
        let cache: URL

        static func start() async throws -> Setup {
            var configuration = EmulatorConfiguration.default
            configuration.autoApproveUsername = configuration.defaults.username
            configuration.lifetimes.deviceCodeInterval = 1
            let emulator = try await IdentityEmulator.start(configuration)
            let runner = try CommandRunner()
            return Setup(emulator: emulator, runner: runner, cache: runner.home.appendingPathComponent("cache.json"))
        }

        /// The tenant id (not the domain) keeps silent cache hits free of any metadata request.
        var options: [String] {
            ["--authority", "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
             "--client-id", emulator.clientId, "--cache", cache.path,
             "--graph-endpoint", emulator.httpURL.absoluteString]
        }

        func msal(_ arguments: [String], withOptions: Bool = true) async throws -> ProcessOutput {
            try await runner.run(arguments + (withOptions ? options : []))
        }

        /// Every token secret in the cache file.
        func cachedSecrets() throws -> [String] {
            let data = try Data(contentsOf: cache)
            let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            var secrets: [String] = []
            for section in ["AccessToken", "RefreshToken", "IdToken"] {
                for case let entry as [String: Any] in (document[section] as? [String: Any] ?? [:]).values {
                    if let secret = entry["secret"] as? String, !secret.isEmpty { secrets.append(secret) }
                }
            }
            return secrets
        }
    }

    @Test func helpListsCommandsExamplesAndExitCodes() async throws {
        let runner = try CommandRunner()
        let root = try await runner.run(["--help"])
        #expect(root.status == 0)
        for name in ["login", "token", "accounts", "logout", "graph", "demo", "emulator", "Exit codes", "Examples", "MSAL_CLIENT_ID"] {
            #expect(root.stdout.contains(name), "msal --help should mention \(name)")
        }
        let login = try await runner.run(["login", "--help"])
        #expect(login.status == 0)
        #expect(login.stdout.contains("--device-code") && login.stdout.contains("--cache") && login.stdout.contains("--scopes"))
        #expect(!login.stdout.contains("emulator-auto-approve"))
        let usage = try await runner.run(["token", "--no-such-option"])
        #expect(usage.status == 64)
    }

    @Test func demoRunsTheTutorialAndExitsZero() async throws {
        let runner = try CommandRunner()
        let output = try await runner.run(["demo"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        for text in ["Account signed out", "Access token acquired interactively", "Result from Graph", "userPrincipalName",
                     "Access token found in the cache, silently", "Device is in the private mode", "Sign out completed successfully",
                     "Demo completed."] {
            #expect(output.stdout.contains(text), "demo output should contain \(text)")
        }
        // Each step once: no line printed twice.
        let steps = output.stdout.split(separator: "\n").filter { $0.hasPrefix("[") }.map { $0.split(separator: "#", maxSplits: 1).last.map { $0.drop { $0 != " " } } ?? "" }
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 != $1 }, "\(output.stdout)")
        // JWTs start with "eyJ": no token is printed anywhere.
        #expect(!output.stdout.contains("eyJ") && !output.stderr.contains("eyJ"))
        // The real cache location under the temporary HOME stays untouched.
        #expect(!FileManager.default.fileExists(atPath: runner.home.appendingPathComponent("data/msal-swift").path))
    }

    @Test func demoAndEmulatorNeedTheEmulatorProgramBesideMsal() async throws {
        // `msal` alone (no msal-emulator beside it) says what to build instead of failing obscurely.
        let runner = try CommandRunner()
        let lonely = runner.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
        let copy = lonely.appendingPathComponent("msal")
        // A hard link where the file system allows it: a copy being written while a parallel test forks can be
        // briefly "busy" for exec.
        if (try? FileManager.default.linkItem(at: runner.binary, to: copy)) == nil {
            try FileManager.default.copyItem(at: runner.binary, to: copy)
        }
        let alone = CommandRunner(binary: copy, home: runner.home)
        for command in ["demo", "emulator"] {
            var output = try? await alone.run([command])
            for _ in 0..<20 where output == nil {
                try await Task.sleep(nanoseconds: 100_000_000)
                output = try? await alone.run([command])
            }
            let result = try #require(output)
            #expect(result.status == 1)
            #expect(result.stderr.contains("msal-emulator") && result.stderr.contains("swift build --traits Tools --product msal-emulator"))
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func deviceCodeLoginTokenGraphAccountsLogout() async throws {
        let setup = try await Setup.start()
        var stderrs: [String] = []
        defer { Task { await setup.emulator.stop() } }

        // Nothing cached yet: interaction required.
        let before = try await setup.msal(["token"])
        #expect(before.status == 3)
        #expect(before.stdout.isEmpty)
        #expect(before.stderr.hasPrefix("msal: error:") && before.stderr.split(separator: "\n").count == 1)

        let login = try await setup.msal(["login", "--device-code", "--json"])
        stderrs.append(login.stderr)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let codeLine = try #require(login.stderr.split(separator: "\n").first)
        let code = try #require(try JSONSerialization.jsonObject(with: Data(codeLine.utf8)) as? [String: Any])
        #expect(code["user_code"] is String && code["message"] is String && code["expires_in"] is Int)
        #expect((code["verification_uri"] as? String)?.hasSuffix("/devicelogin") == true)
        #expect(code["device_code"] == nil)
        let signedIn = try #require(try login.json() as? [String: Any])
        #expect((signedIn["account"] as? [String: Any])?["username"] as? String == setup.emulator.username)

        let accounts = try await setup.msal(["accounts", "--json"])
        stderrs.append(accounts.stderr)
        #expect(accounts.status == 0)
        let list = try #require(try accounts.json() as? [[String: Any]])
        #expect(list.map { $0["username"] as? String } == [setup.emulator.username])

        let token = try await setup.msal(["token"])
        stderrs.append(token.stderr)
        #expect(token.status == 0)
        let lines = token.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let secrets = try setup.cachedSecrets()
        #expect(secrets.contains(String(lines.first ?? "")))

        let tokenJSON = try await setup.msal(["token", "--json"])
        stderrs.append(tokenJSON.stderr)
        let object = try #require(try tokenJSON.json() as? [String: Any])
        #expect(object["access_token"] as? String == String(lines.first ?? ""))
        #expect(object["refresh_token"] == nil && object["id_token"] == nil)
        #expect(object["token_type"] as? String == "Bearer")
        // The account is the same object as login's and accounts' (not a bare user name).
        #expect((object["account"] as? [String: Any])?["username"] as? String == setup.emulator.username)
        #expect((object["account"] as? [String: Any])?["home_account_id"] as? String
                == (signedIn["account"] as? [String: Any])?["home_account_id"] as? String)

        let graph = try await setup.msal(["graph", "/me"])
        stderrs.append(graph.stderr)
        #expect(graph.status == 0, "stderr: \(graph.stderr)")
        let me = try #require(try graph.json() as? [String: Any])
        #expect(me["userPrincipalName"] as? String == setup.emulator.username)
        #expect(graph.stdout.contains("\n  "))

        // A valid cached token needs no network: the emulator is gone and the same token comes back.
        await setup.emulator.stop()
        let offline = try await setup.msal(["token"])
        stderrs.append(offline.stderr)
        #expect(offline.status == 0, "stderr: \(offline.stderr)")
        #expect(offline.stdout == token.stdout)

        let logout = try await setup.msal(["logout", "--json"])
        stderrs.append(logout.stderr)
        #expect(logout.status == 0)
        #expect((try logout.json() as? [String: Any])?["signed_out"] as? [String] == [setup.emulator.username])
        let empty = try await setup.msal(["accounts", "--json"])
        #expect((try empty.json() as? [Any])?.isEmpty == true)
        let after = try await setup.msal(["token"])
        stderrs.append(after.stderr)
        #expect(after.status == 3)

        for stderr in stderrs {
            for secret in secrets { #expect(!stderr.contains(secret)) }
            #expect(!stderr.contains("eyJ"))
        }
    }

    @Test func browserLoginThroughTheEmulatorAutoApproveSwitch() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let login = try await setup.msal(["login", "--emulator-auto-approve"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        #expect(login.stdout.contains("Signed in as \(setup.emulator.username)"))
        let accounts = try await setup.msal(["accounts"])
        #expect(accounts.stdout.hasPrefix(setup.emulator.username + "\t"))
        for secret in try setup.cachedSecrets() {
            #expect(!login.stderr.contains(secret) && !login.stdout.contains(secret))
        }
    }

    @Test func httpsEmulatorWorksWithItsCAFile() async throws {
        // The HTTPS authority `msal-emulator` prints works from `msal` given its CA (`--ca-file`, or MSAL_CA_FILE).
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let https = ["--authority", "\(setup.emulator.httpsURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                     "--client-id", setup.emulator.clientId, "--cache", setup.cache.path]
        let untrusted = try await setup.msal(["login", "--emulator-auto-approve"] + https, withOptions: false)
        #expect(untrusted.status == 1)
        #expect(!FileManager.default.fileExists(atPath: setup.cache.path))

        let caFile = setup.runner.home.appendingPathComponent("emulator-ca.pem")
        try setup.emulator.caCertificatePEM.write(to: caFile, atomically: true, encoding: .utf8)
        let login = try await setup.msal(["login", "--emulator-auto-approve", "--ca-file", caFile.path] + https, withOptions: false)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let token = try await setup.runner.run(["token", "--force-refresh"] + https, environment: ["MSAL_CA_FILE": caFile.path])
        #expect(token.status == 0, "stderr: \(token.stderr)")
        #expect(token.stdout.hasPrefix("eyJ"))

        let junk = setup.runner.home.appendingPathComponent("junk.pem")
        try Data("not a certificate".utf8).write(to: junk)
        let bad = try await setup.msal(["token", "--ca-file", junk.path] + https, withOptions: false)
        #expect(bad.status == 64)   // a malformed flag value
        #expect(bad.stderr.contains("cannot be read as PEM certificates"))
    }

    @Test func errorsAreOneLineWithoutSecrets() async throws {
        let runner = try CommandRunner()
        // No client id: Microsoft's first-party public client, with nobody signed in yet.
        let noClient = try await runner.run(["token"])
        #expect(noClient.status == 3, "nobody is signed in")
        #expect(noClient.stderr == "msal: error: No account is signed in. Sign in with `msal login`.\n")
        let environment = try await runner.run(["accounts", "--json"], environment: [
            "MSAL_CLIENT_ID": EmulatorConfiguration.demoClientId,
            "MSAL_CACHE": runner.home.appendingPathComponent("empty.json").path,
        ])
        #expect(environment.status == 0)
        #expect(environment.stdout == "[]\n")
    }
}

/// The commands' help shows prose as prose: no line-continuation backslash printed.
@Suite("msal help text")
struct HelpTextTests {
    @Test(arguments: ["status", "switch", "token", "login"])
    func helpHasNoStrayBackslash(command: String) async throws {
        let help = try await CommandRunner().run(["help", command])
        #expect(help.status == 0)
        let stray = help.stdout.split(separator: "\n").filter { $0.hasSuffix("\\") && !$0.contains("msal ") }
        #expect(stray.isEmpty, "\(stray)")
        // No run of spaces inside a sentence (a line continuation that kept its indentation).
        let gaps = help.stdout.split(separator: "\n").filter { line in
            let text = line.drop { $0 == " " }
            return text.contains("    ") && !text.hasPrefix("-") && !text.hasPrefix("<")
        }
        #expect(gaps.isEmpty, "\(gaps)")
    }
}
