import Foundation

/// The one way a token is acquired, whatever the grant: the cache policy → one request per token (concurrent
/// identical requests share it, in process) → the cache's request lock (across processes or instances) → the
/// cache again under it → the grant → validation → store → the cached token as a fallback when the grant fails.
///
/// The decisions are ``SilentFlowStateMachine``'s; the driver performs its actions with an ``AcquisitionPlan``
/// (what differs between kinds of token) and a ``TokenCachePort`` (what differs between caches).
struct TokenAcquisition: Sendable {
    let policy: CachedTokenPolicy
    let clock: any MSALClock
    let log: MSALLog
    /// Requests in flight, shared by identical concurrent requests.
    let flights: SingleFlight

    func run<Plan: AcquisitionPlan>(_ plan: Plan, cache: any TokenCachePort) async throws -> Plan.Output {
        let correlationId = plan.correlationId
        var machine = SilentFlowStateMachine(policy: policy, forceRefresh: plan.forceRefresh, hasClaims: plan.hasClaims,
                                             correlationId: correlationId, homeAccountId: nil)
        // Remembered hits are answered before the driver runs (``ClientEngine/rememberedSilentHit``).
        var action = machine.next(.started(memoEligible: false))
        var found: CachedToken<Plan.Output>?
        var obtained: Plan.Output?
        while true {
            switch action {
            case .lookUpCache:
                found = try await plan.lookUp(in: cache)
                let now = clock.now()
                noteDecision(found?.times, now: now, plan: plan)
                action = machine.next(.cacheLookedUp(found?.times, now: now))
            case .returnCached:
                guard let found else { throw Self.unexpectedStep(correlationId) }
                RequestDiagnostics.current?.noteSource(.cache)
                return found.output(false)
            case .refresh:
                do {
                    obtained = try await requestOnce(plan, cache: cache, seen: found?.secret, redemption: machine)
                    action = machine.next(.refreshSucceeded)
                } catch {
                    action = machine.next(.refreshFailed(error))
                }
            case .returnRefreshed:
                guard let obtained else { throw Self.unexpectedStep(correlationId) }
                return obtained
            case .returnFallback(let fallback):
                guard let found else { throw Self.unexpectedStep(correlationId) }
                switch fallback {
                case .stillValid(let code):
                    log.with(correlationId: correlationId).warning(
                        "Proactive refresh of the \(plan.tokenName) failed (\(code)); returning the still-valid cached token.")
                case .extendedLifetime:
                    log.with(correlationId: correlationId).warning(
                        "The service is unavailable; returning a token within its extended lifetime.")
                }
                RequestDiagnostics.current?.noteSource(.cache)
                return found.output(fallback == .extendedLifetime)
            case .fail(let error):
                throw error
            case .consultMemo, .returnMemoized, .redeem, .acceptTokens:
                throw Self.unexpectedStep(correlationId)
            }
        }
    }

    /// The token request, once per key: concurrent callers share it; under the cache's request lock, a token
    /// another request or process stored while this one waited (not `seen`, usable as it is) is returned instead.
    private func requestOnce<Plan: AcquisitionPlan>(_ plan: Plan, cache: any TokenCachePort, seen: String?,
                                                    redemption: SilentFlowStateMachine) async throws -> Plan.Output {
        try await flights.run(plan.flightKey) { [self] in
            try await cache.withTokenRequest(key: plan.lockKey, timeout: plan.lockTimeout) { [self] in
                if let stored = try await plan.lookUp(in: cache),
                   policy.isStoredMeanwhile(stored.times, changed: stored.secret != seen, now: clock.now(),
                                            forceRefresh: plan.forceRefresh, hasClaims: plan.hasClaims) {
                    log.with(correlationId: plan.correlationId).info(
                        "Another request or process stored this \(plan.tokenName) while this one waited; using it.")
                    RequestDiagnostics.current?.noteSource(.cache)
                    return stored.output(false)
                }
                cache.noteTokenRequest()
                return try await plan.obtain(using: cache, redemption: redemption)
            }
        }
    }

    /// Records why the cached token (with `times`, nil when none was found) is or is not returned, for the result's
    /// metadata, and logs it.
    private func noteDecision<Plan: AcquisitionPlan>(_ times: CachedTokenTimes?, now: Date, plan: Plan) {
        let reason = policy.refreshReason(times, now: now, forceRefresh: plan.forceRefresh, hasClaims: plan.hasClaims)
        CacheDecisionNote.record(reason, times: times, now: now, what: plan.tokenName, log: log,
                                 correlationId: plan.correlationId)
    }

    /// The error for a step the driver does not expect (a defect, never outside input).
    static func unexpectedStep(_ correlationId: UUID) -> MSALErrorInfo {
        .internal(.internalErrorUnexpected, "The token acquisition asked for an unexpected step.", correlationId: correlationId)
    }
}

extension CachedTokenPolicy {
    /// Whether a token found under the request lock may be returned instead of a request: it is usable as it is,
    /// the request has no claims, and, when it forces a refresh, the token is not the one it saw before (another
    /// request refreshed it meanwhile).
    func isStoredMeanwhile(_ times: CachedTokenTimes, changed: Bool, now: Date, forceRefresh: Bool,
                           hasClaims: Bool) -> Bool {
        guard !hasClaims, !forceRefresh || changed else { return false }
        return decide(times, now: now, forceRefresh: false, hasClaims: false) == .useCached
    }
}
