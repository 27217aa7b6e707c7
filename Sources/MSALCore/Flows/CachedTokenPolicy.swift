import Foundation

/// What a silent request does with the access token it found in the cache (reference: MSAL's silent algorithm).
/// A pure decision, tested without I/O.
enum CachedTokenDecision: Equatable, Sendable {
    /// Return the cached token; no network.
    case useCached
    /// Refresh; if the refresh fails with anything but a definite rejection, the cached token may still be
    /// returned (`refresh_on` has passed but the token is valid).
    case refreshKeepingFallback
    /// Refresh; the cached token is unusable (expired, within the buffer, forced, or a claims request).
    /// When `extendedFallback` is true the token is within its extended lifetime and may be returned during an
    /// outage.
    case refresh(extendedFallback: Bool)
    /// No cached token: refresh.
    case noCachedToken
}

struct CachedTokenPolicy: Sendable {
    /// Seconds before expiry at which a token is no longer returned.
    var expirationBuffer: TimeInterval
    var extendedLifetimeEnabled: Bool

    func decide(expiresOn: Date?, refreshOn: Date?, extendedExpiresOn: Date?, now: Date,
                forceRefresh: Bool, hasClaims: Bool) -> CachedTokenDecision {
        guard let expiresOn else { return .noCachedToken }
        let extended = extendedLifetimeEnabled && (extendedExpiresOn.map { $0 > now } ?? false)
        if forceRefresh || hasClaims {
            return .refresh(extendedFallback: false)
        }
        if expiresOn.timeIntervalSince(now) <= expirationBuffer {
            return .refresh(extendedFallback: extended)
        }
        if let refreshOn, refreshOn <= now {
            return .refreshKeepingFallback
        }
        return .useCached
    }

    /// The decision for a cached token known by its times (nil: none cached).
    func decide(_ times: CachedTokenTimes?, now: Date, forceRefresh: Bool, hasClaims: Bool) -> CachedTokenDecision {
        decide(expiresOn: times?.expiresOn, refreshOn: times?.refreshOn, extendedExpiresOn: times?.extendedExpiresOn,
               now: now, forceRefresh: forceRefresh, hasClaims: hasClaims)
    }

    /// Whether a cached token may be returned as it is, with no request: its decision is ``CachedTokenDecision/useCached``,
    /// or, with `allowingRefreshOn` (the provider just failed), ``CachedTokenDecision/refreshKeepingFallback``.
    func isReturnable(_ entry: AccessTokenEntry, now: Date, allowingRefreshOn: Bool = false) -> Bool {
        isReturnable(CachedTokenTimes(entry), now: now, allowingRefreshOn: allowingRefreshOn)
    }

    /// ``isReturnable(_:now:allowingRefreshOn:)`` for a token known by its times.
    func isReturnable(_ times: CachedTokenTimes, now: Date, allowingRefreshOn: Bool = false) -> Bool {
        switch decide(times, now: now, forceRefresh: false, hasClaims: false) {
        case .useCached: return true
        case .refreshKeepingFallback: return allowingRefreshOn
        case .refresh, .noCachedToken: return false
        }
    }
}
