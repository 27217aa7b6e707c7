import Foundation
import Testing
import MSAL
@testable import MSALCore

/// An application keeps the settings it was created with: no flow reads ``MSALGlobalConfig`` afterwards, and
/// nothing one application learns about authorities reaches another.
@Suite("One context per application")
struct ApplicationContextTests {
    @Test("Changing MSALGlobalConfig after creating an application does not change its requests")
    func globalChangesDoNotReachExistingApplications() async throws {
        let provider = FakeIdentityProvider(host: "login-ctx-\(UUID().uuidString.prefix(8).lowercased()).example.com")
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
        let provider = FakeIdentityProvider()
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
}
