import Foundation
import Logging

/// MSAL's internal logger: it honours ``MSALGlobalConfig/loggerConfig`` (level, PII masking, callback) and also
/// writes through swift-log under the label `com.microsoft.identity.msal`.
///
/// Messages never contain tokens. Personal data (user names, account ids) is passed separately as `pii` and is
/// shown only when the masking level allows it.
struct MSALLog: Sendable {
    private let swiftLog: Logger
    let correlationId: UUID?

    init(correlationId: UUID? = nil) {
        var logger = Logger(label: "com.microsoft.identity.msal")
        logger.logLevel = .trace
        self.swiftLog = logger
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
        case .info: swiftLevel = .info
        case .verbose, .nothing: swiftLevel = .debug
        }
        swiftLog.log(level: swiftLevel, "\(text)")
    }
}
