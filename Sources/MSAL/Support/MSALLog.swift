import Foundation
import Logging

/// MSAL's internal logger: it honours ``MSALGlobalConfig/loggerConfig`` (level, PII masking, callback) and also
/// writes through swift-log under the label `com.microsoft.identity.msal` (errors and warnings as such, MSAL's
/// info messages as `debug` and verbose ones as `trace`, so that a default swift-log setup stays quiet).
///
/// Messages never contain tokens. Personal data (user names, account ids) is passed separately as `pii` and is
/// shown only when the masking level allows it.
struct MSALLog: Sendable {
    private let swiftLog: Logger
    let correlationId: UUID?

    init(correlationId: UUID? = nil) {
        self.swiftLog = Logger(label: "com.microsoft.identity.msal")
        self.correlationId = correlationId
    }

    func with(correlationId: UUID) -> MSALLog { MSALLog(correlationId: correlationId) }

    func error(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.error, message(), pii()) }
    func warning(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.warning, message(), pii()) }
    func info(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.info, message(), pii()) }
    func verbose(_ message: @autoclosure () -> String, pii: @autoclosure () -> String? = nil) { log(.verbose, message(), pii()) }

    private func log(_ level: MSALLogLevel, _ message: String, _ pii: String?) {
        let config = MSALGlobalConfig.loggerConfig
        guard level <= config.logLevel, level != .nothing else { return }
        let showPII = config.logMaskingLevel != .settingsMaskAllPII
        var text = message
        if let pii { text += " " + (showPII ? pii : "(PII masked)") }
        if let correlationId { text = "[\(correlationId.uuidString)] " + text }
        if let callback = config.callback() {
            callback(level, text, showPII && pii != nil)
        }
        let swiftLevel: Logger.Level
        switch level {
        case .error: swiftLevel = .error
        case .warning: swiftLevel = .warning
        case .info: swiftLevel = .debug
        case .verbose, .nothing: swiftLevel = .trace
        }
        swiftLog.log(level: swiftLevel, "\(text)")
    }
}
