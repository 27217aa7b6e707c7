#if os(Linux)
import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALDBus
import MSALEmulator
import MSALEmulatorCore

/// The Linux broker on the broker port, as MSAL for Python drives it: only accounts the broker signed in (or of
/// unknown source) go to it, and a cancelled sign-in tells the broker to close its window.
@Suite("The Linux broker on the broker port", .serialized, .enabled(if: PrivateBus.available || PrivateBus.required))
struct BrokerPortLinuxTests {
    typealias Fixture = BrokeredSignInTests.Fixture

    /// The D-Bus transport, each method it was asked for recorded.
    struct Recording: MSALBrokerTransport {
        let inner: any MSALBrokerTransport
        let calls = LockedBox<[MSALBrokerMethod]>([])

        func call(_ method: MSALBrokerMethod, correlationId: UUID, request: Data, interactive: Bool) async throws -> Data {
            calls.withLock { $0.append(method) }
            return try await inner.call(method, correlationId: correlationId, request: request, interactive: interactive)
        }

        func ping() async throws { try await inner.ping() }
    }

    /// An account signed in with the browser keeps its refresh token when the broker is turned on later: its silent
    /// requests never go to the broker (MSAL for Python: `account_source` must be `broker` or unknown). An account
    /// the broker signed in is the broker's.
    @Test func onlyTheBrokersAccountsGoToTheBroker() async throws {
        let fixture = try await Fixture()
        let storage = MSALInMemoryTokenCacheStorage()
        func app(_ transport: (any MSALBrokerTransport)?) throws -> MSALPublicClientApplication {
            let config = MSALPublicClientApplicationConfig(
                clientId: fixture.emulator.clientId, redirectUri: "http://localhost",
                authority: try MSALAuthority(url: URL(string: "\(fixture.emulator.httpURL.absoluteString)/\(fixture.emulator.tenant)")!))
            config.httpClient = MSALDefaultHTTPClient.shared
            config.cacheConfig.storage = storage
            if let transport { config.brokerOptions = MSALBrokerOptions(transport: transport) }
            return try MSALPublicClientApplication(configuration: config)
        }
        let plain = try app(nil)
        let signedIn = try await plain.acquireToken(with: BrokeredSignInTests.interactive())
        #expect(signedIn.metadata.tokenSource == .identityProvider)

        let recording = Recording(inner: MSALDBusBrokerTransport(address: fixture.bus.address))
        let brokered = try app(recording)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.forceRefresh = true
        #expect(try await brokered.acquireTokenSilent(with: parameters).metadata.tokenSource == .identityProvider)
        #expect(!recording.calls.get().contains(.acquireTokenSilently))

        let viaBroker = try await brokered.acquireToken(with: BrokeredSignInTests.interactive())
        #expect(viaBroker.metadata.tokenSource == .broker)
        let again = MSALSilentTokenParameters(scopes: ["User.Read"], account: viaBroker.account)
        again.forceRefresh = true
        #expect(try await brokered.acquireTokenSilent(with: again).metadata.tokenSource == .broker)
        #expect(recording.calls.get().contains(.acquireTokenSilently))
        await fixture.stop()
    }

    /// Cancelling a sign-in that waits in the broker's window sends `cancelInteractiveFlow`, as msalruntime does, and
    /// ends the call with `userCanceled`.
    @Test func aCancelledSignInTellsTheBroker() async throws {
        let waiting = LockedBox(false)
        let released = LockedBox(false)
        let fixture = try await Fixture(approve: { _ in
            waiting.set(true)
            // The user does not answer until the test is over (a bounded wait on that condition).
            for _ in 0..<1000 where !released.get() { try? await Task.sleep(for: .milliseconds(10)) }
            return nil
        })
        defer { released.set(true) }
        let recording = Recording(inner: MSALDBusBrokerTransport(address: fixture.bus.address))
        let app = try fixture.app(transport: recording)
        let task = Task { try await app.acquireToken(with: BrokeredSignInTests.interactive()) }
        try await eventually(within: 10, "the broker to show its sign-in") { waiting.get() }
        task.cancel()
        await #expect { try await task.value } throws: { ($0 as? MSALErrorInfo)?.code == .userCanceled }
        try await eventually(within: 10, "cancelInteractiveFlow") { recording.calls.get().contains(.cancelInteractiveFlow) }
        released.set(true)
        await fixture.stop()
    }
}
#endif
