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
        // A remembered hit is a bearer token: a proof-of-possession request never takes one.
        if !request.forceRefresh, !request.hasClaimsRequest, request.popScheme == nil, request.account != nil {
            var settings = TokenRequestSettings(scopes: request.scopes)
            settings.account = request.account
            settings.authority = request.authority
            settings.correlationId = request.correlationId
            if let hit = try rememberedSilentHit(&settings, cache: port) { return hit }
        }
        return try await measured { try await acquireTokenSilent(request, cache: port) }
    }

    /// ``rememberedSilentHit(_:cache:)`` in the application's own cache, before any task is made (the public silent
    /// call's hot path); nil also when reading the cache fails (the full path reports that), when the task is
    /// cancelled, or when a telemetry callback must see the call.
    func rememberedSilentHitNow(_ request: inout TokenRequestSettings) -> MSALResult? {
        guard settings.telemetry.callback == nil, !Task.isCancelled else { return nil }
        return try? rememberedSilentHit(&request, cache: cache)
    }

    /// The remembered hit for `request` (a bearer request with no forced refresh and no claims) when the silent flow
    /// would return it: read from `cache`'s current document, unchanged since, and its token still usable; with its
    /// metadata.
    ///
    /// The hit the request's parameters last got (`rememberedHit`) is checked first, with nothing else of the request
    /// read (its account, authority and scopes are read only when it does not answer) and no memo table touched;
    /// otherwise the memo is searched, and a hit found there is remembered in `request` for next time.
    func rememberedSilentHit(_ request: inout TokenRequestSettings, cache: some TokenCachePort) throws -> MSALResult? {
        let start = MonotonicTime.nanoseconds()
        let (document, changeCount) = try cache.readUntimed { ($0.serial, $0.changeCount) }
        let now = clock.now()
        let payload: MSALResult.Payload
        if let last = request.rememberedHit, last.isCurrent(memo: hitMemo, document: document, changeCount: changeCount) {
            guard usable(last.times, now: now) else { return nil }
            payload = last.payload
        } else {
            guard let account = request.account else { return nil }
            let probe = SilentHitProbe(account: ObjectIdentifier(account), authority: request.authority.map(ObjectIdentifier.init),
                                       scopes: request.scopes)
            guard let found = hitMemo.remembered(probe, document: document, changeCount: changeCount, usable: {
                usable($0, now: now)
            }) else { return nil }
            request.rememberedHit = found
            payload = found.payload
        }
        let elapsed = Double(MonotonicTime.nanoseconds() &- start) / 1e9
        return MSALResult(payload: payload, correlationId: request.correlationId ?? CorrelationID.next(),
                          metadata: MSALResultMetadata(tokenSource: .cache, durationTotal: max(0, elapsed)))
    }

    /// Whether a cached token with `times` is returned at `now` by a request with no forced refresh and no claims.
    private func usable(_ times: CachedTokenTimes, now: Date) -> Bool {
        policy.decide(times, now: now, forceRefresh: false, hasClaims: false) == .useCached
    }

    /// Runs an app token call and returns its result with the metadata of what it did.
    func measured(_ body: () async throws -> MSALAppTokenResult) async throws -> MSALAppTokenResult {
        let (result, diagnostics) = try await RequestDiagnostics.measure(body)
        return result.with(metadata: diagnostics.metadata(defaultSource: result.tokenSource))
    }
}
