import Foundation
import Dispatch

extension CachedTokenPolicy {
    /// Why a cached token with `times` (nil: none cached) is not returned as it is; ``MSALCacheRefreshReason/notApplicable``
    /// when it is.
    func refreshReason(_ times: CachedTokenTimes?, now: Date, forceRefresh: Bool, hasClaims: Bool) -> MSALCacheRefreshReason {
        switch decide(times, now: now, forceRefresh: forceRefresh, hasClaims: hasClaims) {
        case .useCached: return .notApplicable
        case .noCachedToken: return .noCachedAccessToken
        case .refreshKeepingFallback: return .proactivelyRefreshed
        case .refresh:
            if forceRefresh { return .forceRefresh }
            if hasClaims { return .claims }
            return .expired
        }
    }
}

/// The cache decision of a request, recorded for the result's metadata and written as one verbose line.
struct CacheDecisionNote {
    /// Records why a cached token (with `times`, nil when none was found) was or was not returned, and logs it to
    /// `log` with `correlationId` (only prepared when the verbose level is delivered).
    static func record(_ reason: MSALCacheRefreshReason, times: CachedTokenTimes?, now: Date, what: String,
                       log: MSALLog, correlationId: UUID) {
        if let diagnostics = RequestDiagnostics.current {
            diagnostics.noteRefreshReason(reason)
            diagnostics.noteRefreshOn(times?.refreshOn)
        }
        guard log.receives(.verbose) else { return }
        log.with(correlationId: correlationId).verbose(describe(reason, times: times, now: now, what: what))
    }

    /// The log line of a cache decision (times and the decision only: never a token).
    static func describe(_ reason: MSALCacheRefreshReason, times: CachedTokenTimes?, now: Date, what: String) -> String {
        guard let times else { return "Cache: no \(what) cached; requesting one (\(reason.rawValue))." }
        let remaining = times.expiresOn.timeIntervalSince(now)
        let state = remaining > 0 ? "expires in \(ExternalNumber.clampedInteger(remaining)) s"
            : "expired \(ExternalNumber.clampedInteger(-remaining)) s ago"
        if reason == .notApplicable { return "Cache: hit, \(what) \(state); returned without a request." }
        return "Cache: \(what) \(state); refreshing (\(reason.rawValue))."
    }
}

extension ClientEngine {
    /// Runs a token call and returns its result with the metadata of what it did (``RequestDiagnostics``).
    func measured(_ body: () async throws -> MSALResult) async throws -> MSALResult {
        let (result, diagnostics) = try await RequestDiagnostics.measure(body)
        return result.with(metadata: diagnostics.metadata(defaultSource: .identityProvider))
    }

    /// A silent request with its metadata. A remembered cache hit (``SilentHitMemo``, the hot path) is answered
    /// first, with no collector to set up; anything else runs measured from the cache lookup on.
    func acquireTokenSilentMeasured(_ request: SilentRequest, cache: (any TokenCachePort)? = nil) async throws -> MSALResult {
        let port = cache ?? self.cache
        let start = ContinuousClock.now
        if let hit = try rememberedSilentHit(request, cache: port) {
            let total = ContinuousClock.now - start
            let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
            return hit.with(metadata: MSALResultMetadata(tokenSource: .cache, durationTotal: max(0, seconds)))
        }
        return try await measured { try await acquireTokenSilent(request, consultMemo: false, cache: port) }
    }

    /// A remembered cache hit of the application's own cache with its metadata, answered synchronously; nil when
    /// there is none, when reading the cache fails (the full path reports that) or when a telemetry callback must
    /// see the call.
    func rememberedSilentHitNow(account: ObjectIdentifier, authority: ObjectIdentifier?, scopes: [String],
                                correlationId: UUID?) -> MSALResult? {
        guard settings.telemetry.callback == nil, !Task.isCancelled else { return nil }
        let start = DispatchTime.now().uptimeNanoseconds
        guard let (document, changeCount) = try? cache.read({ ($0, $0.changeCount) }) else { return nil }
        let now = clock.now()
        guard let payload = hitMemo.payload(
            account: account, authority: authority, scopes: scopes,
            document: document, changeCount: changeCount,
            usable: { policy.decide($0, now: now, forceRefresh: false, hasClaims: false) == .useCached }) else { return nil }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9
        return MSALResult(payload: payload, correlationId: correlationId ?? CorrelationID.next(),
                          metadata: MSALResultMetadata(tokenSource: .cache, durationTotal: max(0, elapsed)))
    }

    /// The remembered hit for `request` when the silent flow would return it (the memo steps of
    /// ``SilentFlowStateMachine``): no forced refresh or claims, the cache unchanged since, the token still usable.
    func rememberedSilentHit(_ request: SilentRequest, cache: any TokenCachePort) throws -> MSALResult? {
        guard !request.forceRefresh, !request.hasClaimsRequest, let account = request.account else { return nil }
        let key = SilentHitMemo.Key(account: ObjectIdentifier(account), authority: request.authority.map(ObjectIdentifier.init),
                                    scopes: request.scopes)
        guard let hit = hitMemo.lookup(key), try Self.unchangedSinceRecorded(hit, in: cache),
              policy.decide(hit.times, now: clock.now(), forceRefresh: false, hasClaims: false) == .useCached else {
            return nil
        }
        return MSALResult(payload: hit.payload, correlationId: request.correlationId)
    }

    /// Runs an app token call and returns its result with the metadata of what it did.
    func measured(_ body: () async throws -> MSALAppTokenResult) async throws -> MSALAppTokenResult {
        let (result, diagnostics) = try await RequestDiagnostics.measure(body)
        return result.with(metadata: diagnostics.metadata(defaultSource: result.tokenSource))
    }
}
