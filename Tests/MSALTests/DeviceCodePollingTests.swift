import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// The device code polling rules, without I/O.
@Suite("Device code polling state machine")
struct DeviceCodePollingTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func pollsAtOnceThenWaitsOneIntervalWhilePending() {
        var machine = DeviceCodePolling(interval: 5, expiresOn: start.addingTimeInterval(900))
        #expect(machine.start(now: start) == .poll)
        #expect(machine.received(.authorizationPending, now: start) == .wait(5))
        #expect(machine.waited(now: start.addingTimeInterval(5)) == .poll)
        #expect(machine.received(.authorizationPending, now: start.addingTimeInterval(5)) == .wait(5))
        #expect(machine.received(.tokens, now: start.addingTimeInterval(10)) == .succeed)
    }

    @Test func defaultIntervalIsFiveSecondsAndAtLeastOne() {
        var unset = DeviceCodePolling(interval: nil, expiresOn: start.addingTimeInterval(60))
        #expect(unset.received(.authorizationPending, now: start) == .wait(5))
        var zero = DeviceCodePolling(interval: 0, expiresOn: start.addingTimeInterval(60))
        #expect(zero.received(.authorizationPending, now: start) == .wait(1))
        #expect(DeviceCodePolling(interval: .nan, expiresOn: start.addingTimeInterval(60)).interval == 5)
    }

    @Test func slowDownAddsFiveSecondsForThisAndLaterPolls() {
        var machine = DeviceCodePolling(interval: 5, expiresOn: start.addingTimeInterval(900))
        #expect(machine.received(.slowDown, now: start) == .wait(10))
        #expect(machine.received(.authorizationPending, now: start) == .wait(10))
        #expect(machine.received(.slowDown, now: start) == .wait(15))
        #expect(machine.interval == 15)
    }

    @Test func terminalAnswersStop() {
        var machine = DeviceCodePolling(interval: 5, expiresOn: start.addingTimeInterval(900))
        #expect(machine.received(.declined, now: start) == .stop(.declined))
        #expect(machine.received(.expired, now: start) == .stop(.expired))
        #expect(machine.received(.badVerificationCode, now: start) == .stop(.badVerificationCode))
        #expect(machine.received(.otherError, now: start) == .stop(.serverError))
    }

    @Test func anExpiredCodeIsNeverPolled() {
        let machine = DeviceCodePolling(interval: 5, expiresOn: start)
        #expect(machine.start(now: start) == .stop(.expired))
        #expect(machine.start(now: start.addingTimeInterval(-1)) == .poll)
    }

    @Test func neverWaitsPastExpiryAndStopsOnceExpired() {
        var machine = DeviceCodePolling(interval: 5, expiresOn: start.addingTimeInterval(7))
        #expect(machine.received(.authorizationPending, now: start.addingTimeInterval(5)) == .wait(2))
        #expect(machine.waited(now: start.addingTimeInterval(7)) == .stop(.expired))
        #expect(machine.received(.authorizationPending, now: start.addingTimeInterval(8)) == .stop(.expired))
    }

    @Test func transportFailuresBackOffThenGiveUp() {
        var machine = DeviceCodePolling(interval: 5, expiresOn: start.addingTimeInterval(3600))
        #expect(machine.received(.transportFailure, now: start) == .wait(10))
        #expect(machine.received(.transportFailure, now: start) == .wait(20))
        #expect(machine.received(.transportFailure, now: start) == .wait(40))
        #expect(machine.received(.transportFailure, now: start) == .wait(60))
        #expect(machine.received(.transportFailure, now: start) == .stop(.transportFailed))
        var recovering = DeviceCodePolling(interval: 5, expiresOn: start.addingTimeInterval(3600))
        _ = recovering.received(.transportFailure, now: start)
        #expect(recovering.received(.authorizationPending, now: start) == .wait(5))
        #expect(recovering.consecutiveFailures == 0)
    }

    @Test func classifiesServerAnswers() {
        #expect(DeviceCodePollOutcome.classify(statusCode: 200, oauthError: nil) == .tokens)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "authorization_pending") == .authorizationPending)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "slow_down") == .slowDown)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "authorization_declined") == .declined)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "access_denied") == .declined)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "expired_token") == .expired)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "bad_verification_code") == .badVerificationCode)
        #expect(DeviceCodePollOutcome.classify(statusCode: 400, oauthError: "invalid_client") == .otherError)
        #expect(DeviceCodePollOutcome.classify(statusCode: 503, oauthError: nil) == .transportFailure)
        #expect(DeviceCodePollOutcome.classify(statusCode: 429, oauthError: nil) == .transportFailure)
    }

    @Test func deviceCodeInfoParsesAndHidesTheDeviceCode() throws {
        let body = Data("""
        {"device_code":"SECRET-DEVICE-CODE","user_code":"ABCD1234","verification_uri":"https://example.test/devicelogin",
         "expires_in":"600","interval":3}
        """.utf8)
        let code = try MSALDeviceCode.parse(body, now: start, correlationId: UUID())
        #expect(code.userCode == "ABCD1234")
        #expect(code.expiresOn == start.addingTimeInterval(600))
        #expect(code.interval == 3)
        #expect(code.message.contains("ABCD1234") && code.message.contains("https://example.test/devicelogin"))
        #expect(!code.description.contains("SECRET"))
        #expect(throws: MSALErrorInfo.self) { try MSALDeviceCode.parse(Data("{}".utf8), now: start, correlationId: UUID()) }
    }
}
