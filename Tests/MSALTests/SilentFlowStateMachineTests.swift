import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// The silent decision, event by event, without cache, network or clock.
@Suite("Silent flow state machine")
struct SilentFlowStateMachineTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let correlationId = UUID()

    func machine(force: Bool = false, claims: Bool = false, extendedLifetime: Bool = true) -> SilentFlowStateMachine {
        SilentFlowStateMachine(policy: CachedTokenPolicy(expirationBuffer: 300, extendedLifetimeEnabled: extendedLifetime),
                               forceRefresh: force, hasClaims: claims, correlationId: correlationId,
                               homeAccountId: "uid.utid")
    }

    func times(expires: TimeInterval, refreshOn: TimeInterval? = nil, extended: TimeInterval? = nil) -> CachedTokenTimes {
        CachedTokenTimes(expiresOn: now.addingTimeInterval(expires), refreshOn: refreshOn.map { now.addingTimeInterval($0) },
                         extendedExpiresOn: extended.map { now.addingTimeInterval($0) })
    }

    func refreshToken(_ name: String, family: String? = nil) -> RefreshTokenEntry {
        RefreshTokenEntry(homeAccountId: "uid.utid", environment: "login.microsoftonline.com",
                          clientId: family == nil ? "client" : "other-client", target: nil, secret: "secret-\(name)",
                          lastModificationTime: nil, familyId: family, key: "key-\(name)")
    }

    /// A step name for comparison (actions carry errors and entries, which are not Equatable).
    func name(_ action: SilentFlowStateMachine.Action) -> String {
        switch action {
        case .consultMemo: return "consultMemo"
        case .returnMemoized: return "returnMemoized"
        case .lookUpCache: return "lookUpCache"
        case .returnCached: return "returnCached"
        case .refresh: return "refresh"
        case .redeem(let entry): return "redeem \(entry.key)"
        case .acceptTokens(let entry): return "accept \(entry.key)"
        case .returnRefreshed: return "returnRefreshed"
        case .returnFallback(.stillValid(let code)): return "fallback stillValid \(code)"
        case .returnFallback(.extendedLifetime): return "fallback extended"
        case .fail(let error):
            guard let info = error as? MSALErrorInfo else { return "fail \(type(of: error))" }
            return "fail \(info.code) \(info.oauthError ?? "-")"
        }
    }

    func rejected(_ oauthError: String = "invalid_grant") -> MSALErrorInfo {
        var error = MSALErrorInfo(.interactionRequired, description: "rejected", correlationId: correlationId)
        error.oauthError = oauthError
        return error
    }

    func unavailable() -> MSALErrorInfo {
        var error = MSALErrorInfo(.serverError, description: "HTTP 503", correlationId: correlationId)
        error.httpStatusCode = 503
        return error
    }

    @Test func cacheHitReturnsCachedToken() {
        var flow = machine()
        #expect(name(flow.next(.started(memoEligible: false))) == "lookUpCache")
        #expect(name(flow.next(.cacheLookedUp(times(expires: 3600), now: now))) == "returnCached")
    }

    @Test func memoHitSkipsTheLookupAndAStaleMemoFallsThrough() {
        var flow = machine()
        #expect(name(flow.next(.started(memoEligible: true))) == "consultMemo")
        #expect(name(flow.next(.memoConsulted(times(expires: 3600), now: now))) == "returnMemoized")

        var stale = machine()
        _ = stale.next(.started(memoEligible: true))
        #expect(name(stale.next(.memoConsulted(times(expires: 100), now: now))) == "lookUpCache")
        var missed = machine()
        _ = missed.next(.started(memoEligible: true))
        #expect(name(missed.next(.memoConsulted(nil, now: now))) == "lookUpCache")
        #expect(name(missed.next(.cacheLookedUp(times(expires: 3600), now: now))) == "returnCached")
    }

    @Test func expiredTokenIsRefreshed() {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        #expect(name(flow.next(.cacheLookedUp(times(expires: 200), now: now))) == "refresh")
        var redemption = flow
        #expect(name(redemption.next(.candidatesFound([refreshToken("a")]))) == "redeem key-a")
        #expect(name(redemption.next(.tokensReceived)) == "accept key-a")
        #expect(name(flow.next(.refreshSucceeded)) == "returnRefreshed")
    }

    @Test func passedRefreshOnFallsBackToTheValidTokenOnAnyMSALError() {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        #expect(name(flow.next(.cacheLookedUp(times(expires: 3600, refreshOn: -1), now: now))) == "refresh")
        #expect(name(flow.next(.refreshFailed(rejected()))) == "fallback stillValid interactionRequired")

        var foreign = machine()
        _ = foreign.next(.started(memoEligible: false))
        _ = foreign.next(.cacheLookedUp(times(expires: 3600, refreshOn: -1), now: now))
        #expect(name(foreign.next(.refreshFailed(CancellationError()))) == "fail CancellationError")
    }

    @Test func forceRefreshAndClaimsSkipMemoAndCachedToken() {
        for (force, claims) in [(true, false), (false, true)] {
            var flow = machine(force: force, claims: claims)
            #expect(name(flow.next(.started(memoEligible: true))) == "lookUpCache")
            #expect(name(flow.next(.cacheLookedUp(times(expires: 3600), now: now))) == "refresh")
            #expect(name(flow.next(.refreshFailed(unavailable()))) == "fail serverError -")
        }
    }

    @Test func serviceUnavailableReturnsATokenWithinItsExtendedLifetime() {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        #expect(name(flow.next(.cacheLookedUp(times(expires: -10, extended: 3600), now: now))) == "refresh")
        #expect(name(flow.next(.refreshFailed(unavailable()))) == "fallback extended")

        // An OAuth error is a definite answer, not an outage.
        var answered = machine()
        _ = answered.next(.started(memoEligible: false))
        _ = answered.next(.cacheLookedUp(times(expires: -10, extended: 3600), now: now))
        var oauth = unavailable()
        oauth.oauthError = "temporarily_unavailable"
        #expect(name(answered.next(.refreshFailed(oauth))) == "fail serverError temporarily_unavailable")

        // Extended lifetime disabled, or the extended lifetime over: the error.
        for (enabled, extended) in [(false, 3600.0), (true, -1.0)] {
            var strict = machine(extendedLifetime: enabled)
            _ = strict.next(.started(memoEligible: false))
            _ = strict.next(.cacheLookedUp(times(expires: -10, extended: extended), now: now))
            #expect(name(strict.next(.refreshFailed(unavailable()))) == "fail serverError -")
        }
    }

    @Test func rejectedRefreshTokenGivesWayToTheNextCandidate() {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        _ = flow.next(.cacheLookedUp(nil, now: now))
        var redemption = flow
        #expect(name(redemption.next(.candidatesFound([refreshToken("own"), refreshToken("family", family: "1")])))
                == "redeem key-own")
        #expect(name(redemption.next(.redeemFailed(rejected()))) == "redeem key-family")
        #expect(name(redemption.next(.tokensReceived)) == "accept key-family")
    }

    @Test func otherRedeemFailuresStopAtOnce() {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        _ = flow.next(.cacheLookedUp(nil, now: now))
        _ = flow.next(.candidatesFound([refreshToken("own"), refreshToken("family", family: "1")]))
        #expect(name(flow.next(.redeemFailed(unavailable()))) == "fail serverError -")
    }

    @Test func allCandidatesRejectedFailsWithTheLastRejection() {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        _ = flow.next(.cacheLookedUp(nil, now: now))
        var redemption = flow
        _ = redemption.next(.candidatesFound([refreshToken("own"), refreshToken("family", family: "1")]))
        #expect(name(redemption.next(.redeemFailed(rejected("invalid_grant")))) == "redeem key-family")
        #expect(name(redemption.next(.redeemFailed(rejected("unauthorized_client")))) == "fail interactionRequired unauthorized_client")
        // The shared refresh's error reaches the request; with no cached token there is nothing to fall back to.
        #expect(name(flow.next(.refreshFailed(rejected("unauthorized_client")))) == "fail interactionRequired unauthorized_client")
    }

    @Test func noCandidatesRequiresInteraction() throws {
        var flow = machine()
        _ = flow.next(.started(memoEligible: false))
        _ = flow.next(.cacheLookedUp(nil, now: now))
        let action = flow.next(.candidatesFound([]))
        guard case .fail(let error) = action, let info = error as? MSALErrorInfo else {
            Issue.record("expected a failure, got \(name(action))")
            return
        }
        #expect(info.code == .interactionRequired)
        #expect(info.homeAccountId == "uid.utid")
        #expect(info.correlationId == correlationId)
    }

    @Test func eventsOutOfOrderFailWithoutTrapping() {
        var flow = machine()
        #expect(name(flow.next(.tokensReceived)) == "fail internal -")
        var early = machine()
        _ = early.next(.started(memoEligible: false))
        #expect(name(early.next(.refreshSucceeded)) == "fail internal -")
        var cached = machine()
        _ = cached.next(.started(memoEligible: false))
        _ = cached.next(.cacheLookedUp(times(expires: 3600), now: now))
        #expect(name(cached.next(.refreshFailed(unavailable()))) == "fail internal -")
    }
}
