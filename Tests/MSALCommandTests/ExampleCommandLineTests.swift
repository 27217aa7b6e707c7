import Foundation
import Testing
import MSALTestSupport

/// The example programs' command lines, run as built binaries: ArgumentParser refuses what it does not know, and
/// only explicit options choose the mode (never an environment variable such as `MSAL_CLIENT_ID`).
@Suite("Example programs: command lines and modes", .serialized)
struct ExampleCommandLineTests {
    static let examples = ["tutorial-graph", "tutorial-b2c", "daemon", "on-behalf-of", "web-app"]

    /// A runner for the example `name`, built next to the `msal` binary.
    func runner(_ name: String) throws -> CommandRunner {
        let msal = try CommandRunner()
        let binary = msal.binary.deletingLastPathComponent().appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(name) is not built; run `swift build --traits Tools` first.")
        return CommandRunner(binary: binary, home: msal.home)
    }

    @Test("An unknown flag is a usage error (exit 64) naming the flag", arguments: examples)
    func unknownFlagIsRefused(_ name: String) async throws {
        let output = try await runner(name).run(["--no-such-flag"])
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains("--no-such-flag"))
        #expect(!output.stdout.contains("Started"), "nothing runs after a usage error")
    }

    @Test("--help states each default once", arguments: examples)
    func helpStatesEachDefaultOnce(_ name: String) async throws {
        let output = try await runner(name).run(["--help"])
        #expect(output.status == 0, "\(output.stderr)")
        let text = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.range(of: #"\(default: [^)]*\)\. \(default:"#, options: .regularExpression) == nil, "\(output.stdout)")
    }

    @Test("--emulator and --client-id together are a usage error", arguments: examples)
    func emulatorAndClientIdConflict(_ name: String) async throws {
        let output = try await runner(name).run(["--emulator", "--client-id", "11111111-2222-3333-4444-555555555555"])
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains("--emulator"))
    }

    @Test("MSAL_CLIENT_ID and friends in the environment do not leave the emulator", arguments: ["tutorial-graph", "tutorial-b2c"])
    func environmentDoesNotChooseTheMode(_ name: String) async throws {
        let environment = ["MSAL_CLIENT_ID": "11111111-2222-3333-4444-555555555555",
                           "MSAL_AUTHORITY": "https://login.microsoftonline.com/organizations",
                           "MSAL_SCOPES": "Mail.Read", "B2C_TENANT": "contoso.onmicrosoft.com"]
        let output = try await runner(name).run([], environment: environment)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("Started the identity platform emulator"))
        #expect(!output.stdout.contains("11111111-2222-3333-4444-555555555555"))
        #expect(!output.stdout.contains("eyJ"), "no token is printed")
    }

    @Test("A client secret is read only from the variable --client-secret-env names", arguments: ["on-behalf-of", "web-app"])
    func secretOnlyThroughTheNamedVariable(_ name: String) async throws {
        let missing = try await runner(name).run(["--client-id", "11111111-2222-3333-4444-555555555555", "--tenant", "contoso.onmicrosoft.com"]
            .filter { name == "on-behalf-of" || !$0.contains("tenant") && !$0.hasPrefix("contoso") },
            environment: ["MSAL_CLIENT_SECRET": "not-read"])
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("--client-secret-env"))
        #expect(!missing.stderr.contains("not-read"))
        let unset = try await runner(name).run(["--client-id", "11111111-2222-3333-4444-555555555555", "--tenant", "contoso.onmicrosoft.com",
                                                "--client-secret-env", "EXAMPLE_TEST_SECRET"]
            .filter { name == "on-behalf-of" || !$0.contains("tenant") && !$0.hasPrefix("contoso") })
        #expect(unset.status == 64, "\(unset.stderr)")
        #expect(unset.stderr.contains("EXAMPLE_TEST_SECRET"))
    }
}
