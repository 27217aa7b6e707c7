import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALSamples

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
          msal demo
        """
    )

    @Flag(name: .long, help: "Log MSAL's diagnostics to stderr.")
    var verbose = false

    func run() async throws {
        CLI.setUpLogging(verbose: verbose)
        var configuration = EmulatorConfiguration.default
        // Emulator-only: approve the demo user's sign-in at once, with no page.
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator: IdentityEmulator
        do {
            emulator = try await IdentityEmulator.start(configuration)
        } catch {
            CLI.err("msal: error: the emulator could not start: \(CLI.oneLine(String(describing: error)))")
            throw ExitCode(CLIExit.failure)
        }
        let start = Date()
        let step = LockedCounter()
        let log: @Sendable (String) -> Void = { text in
            let elapsed = String(format: "%6.3f", Date().timeIntervalSince(start))
            CLI.out("[\(elapsed)s] #\(step.next()) \(text)")
        }
        CLI.out("MSAL for Swift demo: the Graph tutorial against the local identity platform emulator.")
        CLI.out("Emulator at \(emulator.httpURL.absoluteString); auto-approve (emulator-only switch) signs in \(emulator.username).")
        let settings = GraphTutorialSettings(
            clientId: emulator.clientId, authority: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)",
            scopes: ["User.Read"], graphEndpoint: emulator.httpURL.absoluteString + "/",
            cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
        let succeeded = await GraphTutorial(settings: settings, log: log).run()
        await emulator.stop()
        CLI.out(succeeded ? "Demo completed." : "Demo failed.")
        if !succeeded { throw ExitCode(CLIExit.failure) }
    }
}

/// Numbers the demo's steps.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
