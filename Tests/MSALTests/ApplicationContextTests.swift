import MSALTesting
import Foundation
import MSALTestSupport
import Logging
import Testing
import MSAL
@testable import MSALCore
@testable import MSALFileStorage

/// An application keeps the settings it was created with: no flow reads ``MSALGlobalConfig`` afterwards, and
/// nothing one application learns about authorities reaches another.
@Suite("One context per application", .serialized)
struct ApplicationContextTests {
    @Test("Changing MSALGlobalConfig after creating an application does not change its requests")
    func globalChangesDoNotReachExistingApplications() async throws {
        let provider = MSALScriptedIdentityProvider(host: "login-ctx-\(UUID().uuidString.prefix(8).lowercased()).example.com")
        let original = MSALGlobalConfig.httpConfig.timeoutIntervalForRequest
        let app = try makeFakeApp(provider)
        // A value no other test depends on: only the requests' timeout field tells it apart.
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = original + 17
        defer { MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = original }
        _ = try await app.acquireToken(with: interactiveParameters(provider))
        #expect(!provider.requests.isEmpty)
        #expect(provider.requests.allSatisfy { $0.timeout == original }, "\(provider.requests.map(\.timeout))")

        // An application created afterwards takes the new value.
        provider.resetLog()
        let later = try makeFakeApp(provider)
        _ = try await later.acquireToken(with: interactiveParameters(provider))
        #expect(provider.requests.contains { $0.timeout == original + 17 })
    }

    @Test("Each application resolves authorities with its own resolver")
    func resolversAreNotShared() throws {
        let provider = MSALScriptedIdentityProvider()
        let first = try makeFakeApp(provider)
        let second = try makeFakeApp(provider)
        #expect(first.engine.resolver !== second.engine.resolver)
    }

    @Test("Out-of-range HTTP settings are kept within bounds, never trap a later request")
    func httpSettingsAreBounded() {
        let config = MSALGlobalConfig.httpConfig
        let original = (config.timeoutIntervalForRequest, config.retryInterval, config.retryCount)
        defer {
            config.timeoutIntervalForRequest = original.0
            config.retryInterval = original.1
            config.retryCount = original.2
        }
        config.timeoutIntervalForRequest = .nan
        #expect(config.timeoutIntervalForRequest == original.0)
        config.timeoutIntervalForRequest = 1e300
        #expect(config.timeoutIntervalForRequest == 86_400)
        config.timeoutIntervalForRequest = original.0
        config.retryInterval = .infinity
        #expect(config.retryInterval == 3600)
        config.retryInterval = original.1
        config.retryCount = Int.max
        #expect(config.retryCount == 10)
    }

    @Test("Log settings are the application's: a later change of MSALGlobalConfig's callback does not reach it")
    func logSettingsAreSnapshotted() async throws {
        let provider = MSALScriptedIdentityProvider(host: "login-log-\(UUID().uuidString.prefix(8).lowercased()).example.com")
        let before = LockedBox<[String]>([])
        let after = LockedBox<[String]>([])
        MSALGlobalConfig.loggerConfig.setLogCallback { _, text, _ in before.withLock { $0.append(text ?? "") } }
        let app = try makeFakeApp(provider)
        MSALGlobalConfig.loggerConfig.setLogCallback { _, text, _ in after.withLock { $0.append(text ?? "") } }
        defer { MSALGlobalConfig.loggerConfig.clearLogCallback() }
        let parameters = interactiveParameters(provider)
        let correlationId = UUID()
        parameters.correlationId = correlationId
        _ = try await app.acquireToken(with: parameters)
        // MSAL's callback has no metadata: the correlation id leads the text.
        #expect(before.get().contains { $0.hasPrefix("[\(correlationId.uuidString)] ") })
        #expect(!after.get().contains { $0.contains(correlationId.uuidString) })
    }

    @Test("Every log line goes to the configured Logger, with the correlation id as metadata")
    func configuredLoggerGetsCorrelationMetadata() async throws {
        let provider = MSALScriptedIdentityProvider(host: "login-meta-\(UUID().uuidString.prefix(8).lowercased()).example.com")
        let (logger, recorder) = RecordingLogHandler.logger(label: "app.auth")
        let app = try makeFakeApp(provider) { config in config.logger = logger }
        let parameters = interactiveParameters(provider)
        let correlationId = UUID()
        parameters.correlationId = correlationId
        _ = try await app.acquireToken(with: parameters)
        let lines = recorder.entries
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.metadata[MSALLog.correlationIdKey] == correlationId.uuidString })
        // Metadata, not text: the message does not repeat the id.
        #expect(!lines.contains { $0.message.contains(correlationId.uuidString) })

        // The cache logs through the same logger (an unreadable cache file is reported there).
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ctx-\(UUID().uuidString).json")
        try Data("not json".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (cacheLogger, cacheRecorder) = RecordingLogHandler.logger(label: "app.cache")
        let other = try makeFakeApp(provider, storage: MSALFileTokenCacheStorage(fileURL: file)) { $0.logger = cacheLogger }
        _ = try other.allAccounts()
        #expect(cacheRecorder.entries.contains { $0.level == .warning && $0.message.contains("token cache") })
    }
}
