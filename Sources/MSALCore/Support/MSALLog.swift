import Foundation
import Logging

/// MSAL's internal logger: it honours ``MSALGlobalConfig/loggerConfig`` (level, PII masking, callback) and also
/// writes through swift-log under the label `com.microsoft.identity.msal` (errors and warnings as such, MSAL's
/// info messages as `debug` and verbose ones as `trace`, so that a default swift-log setup stays quiet).
///
/// Messages never contain tokens. Personal data (user names, account ids) is passed separately as `pii` and is
/// shown only when the masking level allows it.
package struct MSALLog: Sendable {
    private let swiftLog: Logger
    package let correlationId: UUID?

    package init(correlationId: UUID? = nil) {
        self.swiftLog = Logger(label: "com.microsoft.identity.msal")
        self.correlationId = correlationId
    }

    package func with(correlationId: UUID) -> MSALLog { MSALLog(correlationId: correlationId) }

    package func error(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.error, message, pii) }
    package func warning(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.warning, message, pii) }
    package func info(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.info, message, pii) }
    package func verbose(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.verbose, message, pii) }

    /// Builds the message only when someone receives it: the level is on in ``MSALGlobalConfig/loggerConfig`` and
    /// a callback is set or swift-log's handler takes the level.
    func log(_ level: MSALLogLevel, _ message: () -> String, _ pii: () -> String?,
             config: MSALLoggerConfig = MSALGlobalConfig.loggerConfig) {
        guard level != .nothing, level <= config.logLevel else { return }
        let swiftLevel = Self.swiftLevel(level)
        let callback = config.callback()
        guard callback != nil || swiftLog.logLevel <= swiftLevel else { return }
        let showPII = config.logMaskingLevel != .settingsMaskAllPII
        var text = message()
        let personal = pii()
        if let personal { text += " " + (showPII ? personal : "(PII masked)") }
        if let correlationId { text = "[\(correlationId.uuidString)] " + text }
        if let callback {
            callback(level, text, showPII && personal != nil)
        }
        swiftLog.log(level: swiftLevel, "\(text)")
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
