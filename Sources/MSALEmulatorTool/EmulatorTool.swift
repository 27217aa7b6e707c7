import ArgumentParser
import Logging
import MSAL
import MSALCommandSupport

/// `msal-emulator`: the local Microsoft identity platform emulator, and the demo that runs the Graph tutorial on it.
///
/// A separate program from `msal`, so that everyday `msal` commands do not load the emulator's server stack.
/// `msal emulator` and `msal demo` start this program.
@main
struct EmulatorTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal-emulator",
        abstract: "A local emulator of the Microsoft identity platform (v2.0) and Microsoft Graph /me, and a demo on it.",
        discussion: """
        Examples:
          msal-emulator demo
          msal-emulator serve --json
          msal-emulator --port 8443 --auto-approve alice@contoso.example
        """,
        subcommands: [ServeCommand.self, DemoCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    private static let logging = LockedBox(false)

    /// Sends swift-log (MSAL's and the emulator's diagnostics) to stderr, quiet unless `verbose`.
    static func setUpLogging(verbose: Bool) {
        let first = logging.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            TerminalLogHandler(label: label, logLevel: verbose ? .debug : .error)
        }
        MSALGlobalConfig.loggerConfig.logLevel = verbose ? .info : .error
    }

    /// `text` on one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
