import Foundation
import Logging
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// `MSALLog` builds a message only when it will be delivered.
@Suite("MSAL log levels")
struct MSALLogTests {
    final class Evaluations: @unchecked Sendable {
        let count = LockedBox(0)
        func message(_ text: String) -> String {
            count.withLock { $0 += 1 }
            return text
        }
    }

    @Test func aMessageBelowTheLevelIsNeverBuilt() {
        let config = MSALLoggerConfig()
        let delivered = LockedBox<[String]>([])
        config.setLogCallback { _, text, _ in delivered.withLock { $0.append(text ?? "") } }
        config.logLevel = .warning
        let evaluations = Evaluations()
        var log = MSALLog(logger: Logger(label: "t"), settings: .init(config))
        log.log(.verbose, { evaluations.message("verbose") }, { evaluations.message("pii") })
        log.log(.info, { evaluations.message("info") }, { nil })
        #expect(evaluations.count.get() == 0)
        #expect(delivered.get().isEmpty)

        log.log(.warning, { evaluations.message("warning") }, { nil })
        #expect(evaluations.count.get() == 1)
        #expect(delivered.get() == ["warning"])

        // The settings are a copy: a later change of the configuration needs a new log.
        config.logLevel = .nothing
        log = MSALLog(logger: Logger(label: "t"), settings: .init(config))
        log.log(.error, { evaluations.message("error") }, { nil })
        #expect(evaluations.count.get() == 1)
    }

    @Test func aMessageNobodyReceivesIsNeverBuilt() {
        // The level is on, but there is no callback and swift-log's default handler (level info) drops MSAL's
        // verbose messages (trace): nothing is built.
        let config = MSALLoggerConfig()
        config.logLevel = .verbose
        let evaluations = Evaluations()
        MSALLog(logger: Logger(label: "t"), settings: .init(config)).log(.verbose, { evaluations.message("verbose") }, { nil })
        #expect(evaluations.count.get() == 0)
    }

    @Test func theLoggingMethodsDeferTheirArguments() {
        // The global configuration's default level is info: a verbose message is not built.
        #expect(MSALGlobalConfig.loggerConfig.logLevel < .verbose)
        let evaluations = Evaluations()
        MSALLog().verbose(evaluations.message("verbose"), pii: evaluations.message("pii"))
        #expect(evaluations.count.get() == 0)
    }
}
