import MSALTesting
import Foundation
import MSALTestSupport
import Testing
import MSAL
@testable import MSALCore
import MSALEmulator

/// The device code flow against the emulator, with a sleep that moves the clocks instead of waiting.
@Suite("Device code flow against the emulator", .serialized)
struct DeviceCodeFlowTests {
    /// Records the waits; `onSleep` runs at each one (with its index) before the clocks move.
    final class FastSleeper: @unchecked Sendable {
        let waits = LockedBox<[TimeInterval]>([])
        let clock: MSALTestClock
        let emulator: IdentityEmulator
        let advanceEmulator: @Sendable (Int, TimeInterval) -> TimeInterval
        let onSleep: @Sendable (Int) async throws -> Void

        init(clock: MSALTestClock, emulator: IdentityEmulator,
             advanceEmulator: @escaping @Sendable (Int, TimeInterval) -> TimeInterval = { $1 },
             onSleep: @escaping @Sendable (Int) async throws -> Void = { _ in }) {
            self.clock = clock
            self.emulator = emulator
            self.advanceEmulator = advanceEmulator
            self.onSleep = onSleep
        }

        func install(on app: MSALPublicClientApplication) {
            app.hookedClock?.hook.set { [self] seconds in
                let index = waits.withLock { waits in
                    waits.append(seconds)
                    return waits.count - 1
                }
                await Task.yield()
                try await onSleep(index)
                clock.advance(seconds)
                emulator.clock.advance(by: advanceEmulator(index, seconds))
            }
        }
    }

    func startEmulator(lifetime: Int = 900, interval: Int = 1, autoApprove: Bool = false) async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        configuration.lifetimes.deviceCode = lifetime
        configuration.lifetimes.deviceCodeInterval = interval
        if autoApprove { configuration.autoApproveUsername = configuration.defaults.username }
        return try await IdentityEmulator.start(configuration)
    }

    func makeApp(_ emulator: IdentityEmulator, clock: MSALTestClock, storage: MSALInMemoryTokenCacheStorage,
                 http: MSALRecordingHTTPClient = MSALRecordingHTTPClient()) throws -> MSALPublicClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.clock = HookedClock(clock)
        config.cacheConfig.storage = storage
        return try MSALPublicClientApplication(configuration: config)
    }

    @Test func pendingThenSuccessIsStoredLikeAnySignIn() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        let storage = MSALInMemoryTokenCacheStorage()
        let http = MSALRecordingHTTPClient()
        let app = try makeApp(emulator, clock: clock, storage: storage, http: http)
        let codes = LockedBox<[MSALDeviceCode]>([])
        let sleeper = FastSleeper(clock: clock, emulator: emulator, onSleep: { index in
            // The user finishes on the other device after the second (pending) poll.
            if index == 1, let code = codes.get().first {
                try await DeviceLoginDriver.approve(emulator, userCode: code.userCode)
            }
        })
        sleeper.install(on: app)

        let result = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
            codes.withLock { $0.append(code) }
        }
        let code = try #require(codes.get().first)
        #expect(codes.get().count == 1)
        #expect(code.verificationURI.absoluteString.hasSuffix("/devicelogin"))
        #expect(code.message.contains(code.userCode))
        #expect(code.interval == 1)
        #expect(sleeper.waits.get() == [1, 1])
        #expect(result.account.username == emulator.username)
        #expect(!result.authority.url.absoluteString.isEmpty)
        // The first poll at once, then one per interval.
        let polls = http.paths.filter { $0.hasSuffix("/oauth2/v2.0/token") }.count
        #expect(polls == 3)

        // Stored like any other sign-in: the account is listed, a silent call is a cache hit with no request.
        let cache = String(decoding: try #require(storage.data), as: UTF8.self)
        #expect(cache.contains("urn:ietf:params:oauth:grant-type:device_code"))
        #expect(try app.allAccounts().map(\.username) == [emulator.username])
        http.reset()
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(silent.accessToken == result.accessToken)
        #expect(http.paths.isEmpty)
    }

    @Test func slowDownAddsFiveSeconds() async throws {
        // A 20 s interval: the emulator calls a poll too fast when it comes within half the interval of real time,
        // so a busy machine (10 s of slack) cannot make the second poll look patient.
        let emulator = try await startEmulator(interval: 20)
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        let app = try makeApp(emulator, clock: clock, storage: MSALInMemoryTokenCacheStorage())
        let codes = LockedBox<[MSALDeviceCode]>([])
        // The first poll goes out at once (pending, never slow_down); the emulator's time stands still for the first
        // wait, so the second poll comes too fast.
        let sleeper = FastSleeper(clock: clock, emulator: emulator, advanceEmulator: { index, seconds in index < 1 ? 0 : seconds }, onSleep: { index in
            if index == 1, let code = codes.get().first {
                try await DeviceLoginDriver.approve(emulator, userCode: code.userCode)
            }
        })
        sleeper.install(on: app)
        let result = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
            codes.withLock { $0.append(code) }
        }
        #expect(sleeper.waits.get() == [20, 25])
        #expect(result.account.username == emulator.username)
    }

    @Test func expiryStopsWithAClearError() async throws {
        let emulator = try await startEmulator(lifetime: 3)
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        let app = try makeApp(emulator, clock: clock, storage: MSALInMemoryTokenCacheStorage())
        FastSleeper(clock: clock, emulator: emulator).install(on: app)
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in }
        }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorInvalidGrant)
        #expect(error?.oauthError == "expired_token")
        #expect(error?.errorDescription.contains("expired") == true)

        // The server's expired_token answer (its clock ran ahead of ours) gives the same error.
        let server = try makeApp(emulator, clock: clock, storage: MSALInMemoryTokenCacheStorage())
        FastSleeper(clock: clock, emulator: emulator, advanceEmulator: { _, _ in 60 }).install(on: server)
        let serverError = await #expect(throws: MSALErrorInfo.self) {
            try await server.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in }
        }
        #expect(serverError?.internalCode == .internalErrorInvalidGrant)
        #expect(serverError?.oauthError == "expired_token")
        #expect(serverError?.httpStatusCode == 400)
    }

    @Test func declinedMeansUserCanceled() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        let app = try makeApp(emulator, clock: clock, storage: MSALInMemoryTokenCacheStorage())
        let codes = LockedBox<[MSALDeviceCode]>([])
        FastSleeper(clock: clock, emulator: emulator, onSleep: { index in
            if index == 0, let code = codes.get().first {
                try await DeviceLoginDriver.decline(emulator, userCode: code.userCode)
            }
        }).install(on: app)
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
                codes.withLock { $0.append(code) }
            }
        }
        #expect(error?.code == .userCanceled)
        #expect(error?.oauthError == "authorization_declined")
        #expect(try app.allAccounts().isEmpty)
    }

    @Test func cancellingTheTaskStopsPolling() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try makeApp(emulator, clock: MSALTestClock(), storage: MSALInMemoryTokenCacheStorage())
        let issued = LockedBox(false)
        let task = Task {
            try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in issued.set(true) }
        }
        try await eventually("the device code is issued") { issued.get() }
        task.cancel()
        let result = await Task { try await value(of: task) }.result
        guard case .failure(let error) = result else {
            Issue.record("The flow should have been cancelled")
            return
        }
        #expect((error as? MSALErrorInfo)?.code == .userCanceled)
    }

    @Test func autoApprovedCodeSucceedsAtFirstPollWithCompletionBlock() async throws {
        let emulator = try await startEmulator(autoApprove: true)
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        let app = try makeApp(emulator, clock: clock, storage: MSALInMemoryTokenCacheStorage())
        let sleeper = FastSleeper(clock: clock, emulator: emulator)
        sleeper.install(on: app)
        let username: String? = try await withCheckedThrowingContinuation { continuation in
            app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"]), deviceCodeHandler: { _ in }) { result, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: result?.account.username) }
            }
        }
        #expect(username == emulator.username)
        #expect(sleeper.waits.get().isEmpty, "an approved code is redeemed by the first poll, with no wait")
    }

    @Test func aCodeApprovedBeforeAwaitingIsRedeemedByTheFirstPoll() async throws {
        let emulator = try await startEmulator(interval: 5)
        defer { Task { await emulator.stop() } }
        let clock = MSALTestClock()
        let http = MSALRecordingHTTPClient()
        let app = try makeApp(emulator, clock: clock, storage: MSALInMemoryTokenCacheStorage(), http: http)
        let sleeper = FastSleeper(clock: clock, emulator: emulator)
        sleeper.install(on: app)
        let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        try await DeviceLoginDriver.approve(emulator, userCode: flow.deviceCode.userCode)
        let result = try await flow.result()
        #expect(result.account.username == emulator.username)
        #expect(sleeper.waits.get().isEmpty)
        #expect(http.paths.filter { $0.hasSuffix("/oauth2/v2.0/token") }.count == 1)
    }
}
