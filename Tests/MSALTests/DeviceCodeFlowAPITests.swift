import MSALTesting
import Foundation
import MSALTestSupport
import Testing
import MSAL
@testable import MSALCore

/// The two-step device code API (start, show the code, await the result) on the scripted provider, with a sleep
/// that records the waits and moves the test clock instead of waiting.
@Suite("Device code flow: start, then await the result")
struct DeviceCodeFlowAPITests {
    let provider = MSALScriptedIdentityProvider(host: "login-devcode-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    /// Records every wait; `blocks` makes a wait last until its task is cancelled.
    final class Sleeper: Sendable {
        let waits = LockedBox<[TimeInterval]>([])
        /// The waits that ended (a blocking one ends only when its task is cancelled).
        let ended = LockedBox(0)
        let blocks: Bool
        let clock: MSALTestClock

        init(clock: MSALTestClock, blocks: Bool = false) {
            self.clock = clock
            self.blocks = blocks
        }

        func install(on app: MSALPublicClientApplication) {
            app.hookedClock?.hook.set { [self] seconds in
                waits.withLock { $0.append(seconds) }
                defer { ended.withLock { $0 += 1 } }
                if blocks { try await Gate().pass() }
                clock.advance(seconds)
            }
        }
    }

    static func pending(_ error: String = "authorization_pending") -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: 400, headers: ["Content-Type": "application/json"],
                         body: Data("{\"error\":\"\(error)\",\"error_description\":\"AADSTS70016: \(error)\"}".utf8))
    }

    func devicePolls() -> Int {
        provider.tokenRequestBodies().filter { $0["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code" }.count
    }

    @Test("The first poll goes out at once: an approved code needs no wait")
    func firstPollIsImmediate() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let sleeper = Sleeper(clock: clock)
        sleeper.install(on: app)
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        #expect(flow.deviceCode.userCode == "CODE0001")
        #expect(flow.deviceCode.interval == 5)
        #expect(!flow.description.contains("scripted-device-code"))
        #expect(devicePolls() == 0, "nothing is polled before result() is awaited")
        let result = try await flow.result()
        #expect(result.account.username == provider.user.username)
        #expect(sleeper.waits.get().isEmpty)
        #expect(devicePolls() == 1)
        #expect(flow.isFinished)
        #expect(try app.allAccounts().count == 1)
    }

    @Test("Pending waits one interval, slow_down adds five seconds, then the tokens come")
    func pendingAndSlowDown() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let sleeper = Sleeper(clock: clock)
        sleeper.install(on: app)
        provider.deviceCodeInterval = 3
        provider.scripted = [Self.pending(), Self.pending("slow_down"), Self.pending()]
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        _ = try await flow.result()
        #expect(sleeper.waits.get() == [3, 8, 8])
        #expect(devicePolls() == 4)
    }

    @Test("Concurrent and later awaits share one polling loop and one outcome")
    func awaitingTwice() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        Sleeper(clock: clock).install(on: app)
        provider.scripted = [Self.pending(), Self.pending()]
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        async let first = flow.result()
        async let second = flow.result()
        let (a, b) = try await (first, second)
        #expect(a === b)
        let later = try await flow.result()
        #expect(later === a)
        #expect(devicePolls() == 3)
    }

    @Test("Cancelling the awaiting task stops polling at once; no request follows; every await gets userCanceled")
    func cancellingTheTask() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let sleeper = Sleeper(clock: clock, blocks: true)
        sleeper.install(on: app)
        provider.scripted = [Self.pending()]
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        let waiting = Task { try await flow.result() }
        try await eventually("the flow waits between polls") { !sleeper.waits.get().isEmpty }
        waiting.cancel()
        // The sleeper blocks until cancelled: returning at all proves the wait ended; the bound only catches a hang.
        let error = await #expect(throws: MSALErrorInfo.self) { try await value(of: waiting) }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(error?.correlationId == flow.correlationId)
        // The polling loop stops when its wait ends cancelled: no request can follow it.
        try await eventually("the cancelled wait ends") { sleeper.ended.get() == 1 }
        #expect(devicePolls() == 1, "no request after the cancellation")
        let again = await #expect(throws: MSALErrorInfo.self) { try await flow.result() }
        #expect(again?.code == .userCanceled)
        #expect(devicePolls() == 1)
        #expect(try app.allAccounts().isEmpty)
    }

    @Test("cancel() before result() sends no poll at all")
    func cancelBeforeAwaiting() async throws {
        let app = try makeFakeApp(provider)
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        flow.cancel()
        let error = await #expect(throws: MSALErrorInfo.self) { try await flow.result() }
        #expect(error?.code == .userCanceled)
        #expect(devicePolls() == 0)
        #expect(flow.isFinished)
    }

    @Test("An already cancelled task gets userCanceled without a poll")
    func alreadyCancelledTask() async throws {
        let app = try makeFakeApp(provider)
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flow.result()
        }
        let error = await #expect(throws: MSALErrorInfo.self) { try await task.value }
        #expect(error?.code == .userCanceled)
        #expect(devicePolls() == 0)
    }

    @Test("Declined, expired and unknown codes end with typed errors", arguments: [
        ("authorization_declined", MSALError.userCanceled, MSALInternalError?.none),
        ("expired_token", MSALError.internal, MSALInternalError?.some(.internalErrorInvalidGrant)),
        ("bad_verification_code", MSALError.internal, MSALInternalError?.some(.internalErrorInvalidGrant)),
    ])
    func terminalAnswers(_ answer: String, _ code: MSALError, _ internalCode: MSALInternalError?) async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        Sleeper(clock: clock).install(on: app)
        provider.scripted = [Self.pending(), Self.pending(answer)]
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        let error = await #expect(throws: MSALErrorInfo.self) { try await flow.result() }
        #expect(error?.code == code)
        if let internalCode { #expect(error?.internalCode == internalCode) }
        #expect(error?.oauthError == answer)
        #expect(devicePolls() == 2)
    }

    @Test("The one-call form is the two steps: the handler gets the code once, then the result")
    func oneCallForm() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let sleeper = Sleeper(clock: clock)
        sleeper.install(on: app)
        provider.scripted = [Self.pending()]
        let codes = LockedBox<[String]>([])
        let result = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
            codes.withLock { $0.append(code.userCode) }
        }
        #expect(codes.get() == ["CODE0001"])
        #expect(sleeper.waits.get() == [5])
        #expect(result.account.username == provider.user.username)
    }
}
