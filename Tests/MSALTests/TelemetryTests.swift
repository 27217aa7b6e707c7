import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// `MSALTelemetryConfig.telemetryCallback` gets one event per finished token request, without secrets.
@Suite("Telemetry events", .serialized)
struct TelemetryTests {
    final class Events: @unchecked Sendable {
        private let box = LockedBox<[[String: String]]>([])
        func append(_ event: [String: String]) { box.withLock { $0.append(event) } }
        var all: [[String: String]] { box.get() }
    }

    @Test("Each token call reports one event; failures carry the error, nothing carries a token")
    func eventsPerCall() async throws {
        // A client id of its own: an application another test creates while the global callback is set reports
        // there too, and is told apart by its client id.
        let provider = MSALScriptedIdentityProvider(host: "login-tel-\(UUID().uuidString.prefix(8).lowercased()).example.com",
                                            clientId: UUID().uuidString.lowercased())
        let events = Events()
        // The application takes the callback when it is created; later apps of other tests are not affected
        // because the global is restored right after.
        MSALGlobalConfig.telemetryConfig.telemetryCallback = { events.append($0) }
        let app = try makeFakeApp(provider)
        MSALGlobalConfig.telemetryConfig.telemetryCallback = nil

        let result = try await app.acquireToken(with: interactiveParameters(provider))
        _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        let bad = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        bad.forceRefresh = true
        provider.revokeAllRefreshTokens()
        _ = try? await app.acquireTokenSilent(with: bad)

        let all = events.all.filter { $0[TelemetryReporter.Key.clientId] == provider.clientId }
        #expect(all.map { $0[TelemetryReporter.Key.eventName] } == ["acquire_token", "acquire_token_silent", "acquire_token_silent"])
        #expect(all.map { $0[TelemetryReporter.Key.succeeded] } == ["yes", "yes", "no"])
        #expect(all[2][TelemetryReporter.Key.errorCode] == String(MSALError.interactionRequired.rawValue))
        #expect(all[2][TelemetryReporter.Key.oauthError] == "invalid_grant")
        #expect(all.allSatisfy { $0[TelemetryReporter.Key.clientId] == provider.clientId })
        #expect(all.allSatisfy { $0[TelemetryReporter.Key.userId] == nil }, "no account id without piiEnabled")
        for event in all {
            for value in event.values {
                #expect(!value.contains(result.accessToken) && !value.contains("rt-") && !value.contains("eyJ"))
            }
        }
    }
}
