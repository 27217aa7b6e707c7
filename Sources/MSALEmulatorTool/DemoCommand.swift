import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALCommandSupport
import MSALSamples
import MSALTesting

/// `msal demo`: the whole Graph tutorial against an in-process emulator, with no person and no real cache.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the Graph tutorial end to end against a local emulator (no account or network needed).",
        discussion: """
        Starts the identity platform emulator in this process and runs the tutorial: create the application, load \
        the current account, sign in, call Microsoft Graph /me, get a token silently, read the device information, \
        sign out. The sign-in is approved by the emulator's auto-approve switch (an emulator-only feature; real \
        Microsoft Entra ID always asks the user). Uses an in-memory token cache, so your own cache is not touched. \
        Tokens are never printed.

        Example:
          msal-emulator demo
        """
    )

    @Flag(name: .long, help: "Log MSAL's diagnostics to stderr.")
    var verbose = false

    func run() async throws {
        TerminalLogging.setUp(verbose: verbose)
        var configuration = EmulatorConfiguration.default
        // Emulator-only: approve the demo user's sign-in at once, with no page.
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator: IdentityEmulator
        do {
            emulator = try await IdentityEmulator.start(configuration)
        } catch {
            TerminalOutput.err("msal-emulator: error: the emulator could not start: \(TerminalOutput.oneLine(String(describing: error)))")
            throw ExitCode.failure
        }
        let start = Date()
        let step = LockedBox(0)
        let log: @Sendable (String) -> Void = { text in
            let elapsed = String(format: "%6.3f", Date().timeIntervalSince(start))
            let number = step.withLock { count in
                count += 1
                return count
            }
            TerminalOutput.out("[\(elapsed)s] #\(number) \(text)")
        }
        TerminalOutput.out("MSAL for Swift demo: the Graph tutorial against the local identity platform emulator.")
        TerminalOutput.out("Emulator at \(emulator.httpURL.absoluteString); auto-approve (emulator-only switch) signs in \(emulator.username).")
        let settings = GraphTutorialSettings(
            clientId: emulator.clientId, authority: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)",
            scopes: ["User.Read"], graphEndpoint: emulator.httpURL.absoluteString + "/",
            cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
        let succeeded = await GraphTutorial(settings: settings, log: log).run()
        await emulator.stop()
        TerminalOutput.out(succeeded ? "Demo completed." : "Demo failed.")
        if !succeeded { throw ExitCode.failure }
    }
}
