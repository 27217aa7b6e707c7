import Foundation
import Testing
import MSAL
@testable import MSALCore

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
        let log = MSALLog()
        log.log(.verbose, { evaluations.message("verbose") }, { evaluations.message("pii") }, config: config)
        log.log(.info, { evaluations.message("info") }, { nil }, config: config)
        #expect(evaluations.count.get() == 0)
        #expect(delivered.get().isEmpty)

        log.log(.warning, { evaluations.message("warning") }, { nil }, config: config)
        #expect(evaluations.count.get() == 1)
        #expect(delivered.get() == ["warning"])

        config.logLevel = .nothing
        log.log(.error, { evaluations.message("error") }, { nil }, config: config)
        #expect(evaluations.count.get() == 1)
    }

    @Test func aMessageNobodyReceivesIsNeverBuilt() {
        // The level is on, but there is no callback and swift-log's default handler (level info) drops MSAL's
        // verbose messages (trace): nothing is built.
        let config = MSALLoggerConfig()
        config.logLevel = .verbose
        let evaluations = Evaluations()
        MSALLog().log(.verbose, { evaluations.message("verbose") }, { nil }, config: config)
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
