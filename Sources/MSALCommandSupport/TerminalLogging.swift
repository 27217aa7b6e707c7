import Logging
import MSALCore

/// Logging set-up shared by the command-line programs.
package enum TerminalLogging {
    private static let done = LockedBox(false)

    /// Sends swift-log (MSAL's diagnostics) to stderr through ``TerminalLogHandler``, warnings and errors unless
    /// `verbose` or `debug`, and sets MSAL's level to match: warnings and errors only; with `verbose` MSAL's info messages (swift-log `debug`);
    /// with `debug` also MSAL's verbose messages (swift-log `trace`), among them the redacted HTTP trace and the cache
    /// decisions. Only the first call in a process has an effect.
    package static func setUp(verbose: Bool, debug: Bool = false) {
        let first = done.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        let level: Logger.Level = debug ? .trace : verbose ? .debug : .warning
        LoggingSystem.bootstrap { label in
            TerminalLogHandler(label: label, logLevel: level)
        }
        MSALGlobalConfig.loggerConfig.logLevel = debug ? .verbose : verbose ? .info : .warning
    }
}
