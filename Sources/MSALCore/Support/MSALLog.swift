package import Foundation
package import Logging

/// MSAL's one logging path. Every library log line (flows, cache, storage) goes through it: it applies MSAL's
/// level, PII masking and callback (``MSALLoggerConfig``, as it was when the application was created) and writes
/// through the application's swift-log `Logger` (errors and warnings as such, MSAL's info messages as `debug` and
/// verbose ones as `trace`, so that a default swift-log setup stays quiet). The correlation id travels as the
/// logger metadata `msal.correlation_id`; MSAL's callback, which has no metadata, gets it in front of the text.
///
/// Messages never contain tokens. Personal data (user names, account ids) is passed separately as `pii` and is
/// shown only when the masking level allows it. Nothing is built when no one receives the level.
package struct MSALLog: Sendable {
    /// MSAL's logger settings at one moment (a copy of ``MSALLoggerConfig``).
    package struct Settings: Sendable {
        var level: MSALLogLevel
        var masking: MSALLogMaskingLevel
        var callback: MSALLogCallback?

        /// A copy of `config` as it is now.
        package init(_ config: MSALLoggerConfig) {
            level = config.logLevel
            masking = config.logMaskingLevel
            callback = config.callback()
        }
    }

    /// The label of the default logger.
    package static let label = "com.microsoft.identity.msal"
    /// The metadata key of the correlation id.
    package static let correlationIdKey = "msal.correlation_id"

    private let logger: Logger
    private let settings: Settings
    package let correlationId: UUID?

    /// A log with `logger` and `settings`, for one application.
    package init(logger: Logger, settings: Settings, correlationId: UUID? = nil) {
        var logger = logger
        if let correlationId { logger[metadataKey: Self.correlationIdKey] = .string(correlationId.uuidString) }
        self.logger = logger
        self.settings = settings
        self.correlationId = correlationId
    }

    /// A log outside any application (storage created before its application): the default logger and
    /// ``MSALGlobalConfig/loggerConfig`` as it is now.
    package init(correlationId: UUID? = nil) {
        self.init(logger: Logger(label: Self.label), settings: Settings(MSALGlobalConfig.loggerConfig),
                  correlationId: correlationId)
    }

    /// The same log for one request.
    package func with(correlationId: UUID) -> MSALLog {
        MSALLog(logger: logger, settings: settings, correlationId: correlationId)
    }

    package func error(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.error, message, pii) }
    package func warning(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.warning, message, pii) }
    package func info(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.info, message, pii) }
    package func verbose(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.verbose, message, pii) }

    /// Whether a message at `level` would be delivered, so that a caller can skip preparing one.
    package func receives(_ level: MSALLogLevel) -> Bool {
        guard level != .nothing, level <= settings.level else { return false }
        return settings.callback != nil || logger.logLevel <= Self.swiftLevel(level)
    }

    /// Builds the message only when someone receives it: the level is on in the settings and a callback is set
    /// or the logger takes the level.
    func log(_ level: MSALLogLevel, _ message: () -> String, _ pii: () -> String?) {
        guard receives(level) else { return }
        let swiftLevel = Self.swiftLevel(level)
        let callback = settings.callback
        let showPII = settings.masking != .settingsMaskAllPII
        var text = message()
        let personal = pii()
        if let personal { text += " " + (showPII ? personal : "(PII masked)") }
        if let callback {
            let prefixed = correlationId.map { "[\($0.uuidString)] " + text } ?? text
            callback(level, prefixed, showPII && personal != nil)
        }
        logger.log(level: swiftLevel, "\(text)")
    }

    /// MSAL's levels in swift-log: errors and warnings as such, info as `debug`, verbose as `trace`.
    private static func swiftLevel(_ level: MSALLogLevel) -> Logger.Level {
        switch level {
        case .error: return .error
        case .warning: return .warning
        case .info: return .debug
        case .verbose, .nothing: return .trace
        }
    }
}
