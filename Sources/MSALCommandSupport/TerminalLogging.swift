import Logging
import MSALCore

/// Logging set-up shared by the command-line programs.
package enum TerminalLogging {
    private static let done = LockedBox(false)

    /// Sends swift-log (MSAL's diagnostics) to stderr through ``TerminalLogHandler``, warnings and errors only unless `verbose`, and sets
    /// MSAL's level to match. Only the first call in a process has an effect.
    package static func setUp(verbose: Bool) {
        let first = done.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            TerminalLogHandler(label: label, logLevel: verbose ? .debug : .warning)
        }
        MSALGlobalConfig.loggerConfig.logLevel = verbose ? .info : .warning
    }
}
