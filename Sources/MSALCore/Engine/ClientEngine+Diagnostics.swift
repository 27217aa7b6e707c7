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
        if !request.forceRefresh, !request.hasClaimsRequest, let account = request.account,
           let hit = try rememberedSilentHit(account: ObjectIdentifier(account),
                                             authority: request.authority.map(ObjectIdentifier.init),
                                             scopes: request.scopes, correlationId: request.correlationId, cache: port) {
            return hit
        }
        return try await measured { try await acquireTokenSilent(request, cache: port) }
    }

    /// ``rememberedSilentHit(account:authority:scopes:correlationId:cache:)`` in the application's own cache, before
    /// any task is made (the public silent call's hot path); nil also when reading the cache fails (the full path
    /// reports that), when the task is cancelled, or when a telemetry callback must see the call.
    func rememberedSilentHitNow(account: ObjectIdentifier, authority: ObjectIdentifier?, scopes: [String],
                                correlationId: UUID?) -> MSALResult? {
        guard settings.telemetry.callback == nil, !Task.isCancelled else { return nil }
        return try? rememberedSilentHit(account: account, authority: authority, scopes: scopes,
                                        correlationId: correlationId, cache: cache)
    }

    /// The remembered hit for a request with no forced refresh and no claims, when the silent flow would return it:
    /// read from `cache`'s current document, unchanged since, and its token still usable; with its metadata.
    func rememberedSilentHit(account: ObjectIdentifier, authority: ObjectIdentifier?, scopes: [String],
                             correlationId: UUID?, cache: any TokenCachePort) throws -> MSALResult? {
        let start = DispatchTime.now().uptimeNanoseconds
        let (document, changeCount) = try cache.read { ($0, $0.changeCount) }
        let now = clock.now()
        guard let payload = hitMemo.payload(
            account: account, authority: authority, scopes: scopes,
            document: document, changeCount: changeCount,
            usable: { policy.decide($0, now: now, forceRefresh: false, hasClaims: false) == .useCached }) else { return nil }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9
        return MSALResult(payload: payload, correlationId: correlationId ?? CorrelationID.next(),
                          metadata: MSALResultMetadata(tokenSource: .cache, durationTotal: max(0, elapsed)))
    }

    /// Runs an app token call and returns its result with the metadata of what it did.
    func measured(_ body: () async throws -> MSALAppTokenResult) async throws -> MSALAppTokenResult {
        let (result, diagnostics) = try await RequestDiagnostics.measure(body)
        return result.with(metadata: diagnostics.metadata(defaultSource: result.tokenSource))
    }
}
