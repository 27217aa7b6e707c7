import Foundation

/// The expiry times of a cached access token: all the silent decision needs to know about it.
struct CachedTokenTimes: Equatable, Sendable {
    var expiresOn: Date
    var refreshOn: Date?
    var extendedExpiresOn: Date?

    init(expiresOn: Date, refreshOn: Date? = nil, extendedExpiresOn: Date? = nil) {
        self.expiresOn = expiresOn
        self.refreshOn = refreshOn
        self.extendedExpiresOn = extendedExpiresOn
    }

    init(_ entry: AccessTokenEntry) {
        self.init(expiresOn: entry.expiresOn, refreshOn: entry.refreshOn, extendedExpiresOn: entry.extendedExpiresOn)
    }
}

/// The decisions of a silent token request (MSAL's silent algorithm), as a value: the engine performs each
/// ``Action`` (a memo or cache read, a token request, a write) and reports what happened as an ``Event``; the
/// machine answers with the next action. It does no I/O and reads no clock (times arrive in events).
///
/// The order: the memo of the last cache hit → the cache lookup → return the cached token, or refresh → redeem
/// the refresh tokens one after the other (the account's own, then the family's; one rejected with
/// `interaction_required` gives way to the next) → on a failed refresh, the fallback rules:
/// - a refresh started only because `refresh_on` passed returns the still-valid cached token on any MSAL error;
/// - when the service is unavailable (a server error without an OAuth error), a token within its extended
///   lifetime is returned, if extended lifetime is enabled;
/// - otherwise the error.
///
/// A refresh is shared by concurrent requests for the same key: the engine runs the redemption part on a copy of
/// the machine (``Event/candidatesFound(_:)`` to ``Action/acceptTokens(_:)``) and reports its outcome to the
/// original as ``Event/refreshSucceeded`` or ``Event/refreshFailed(_:)``.
struct SilentFlowStateMachine: Sendable {
    /// What happened, reported by the engine.
    enum Event: Sendable {
        /// The request started; `memoEligible` when it has an account to remember a hit for.
        case started(memoEligible: Bool)
        /// The memo was read: the remembered token's times, or nil (no hit, or the cache changed since).
        case memoConsulted(CachedTokenTimes?, now: Date)
        /// The cache was read: the matching access token's times, or nil.
        case cacheLookedUp(CachedTokenTimes?, now: Date)
        /// The refresh tokens that may be redeemed, in order (own first, then family).
        case candidatesFound([RefreshTokenEntry])
        /// The token endpoint answered the last redemption with tokens.
        case tokensReceived
        /// The last redemption failed.
        case redeemFailed(any Error)
        /// The (possibly shared) refresh returned a result.
        case refreshSucceeded
        /// The (possibly shared) refresh failed.
        case refreshFailed(any Error)
    }

    /// What the engine does next.
    enum Action: Sendable {
        /// Read the memo of the last cache hit, then report ``Event/memoConsulted(_:now:)``.
        case consultMemo
        /// Return the remembered result.
        case returnMemoized
        /// Validate the request, read the cache, then report ``Event/cacheLookedUp(_:now:)``.
        case lookUpCache
        /// Return the cached token (and remember the hit).
        case returnCached
        /// Refresh (shared per key): find the refresh tokens and report ``Event/candidatesFound(_:)`` to a copy of
        /// the machine; report the outcome as ``Event/refreshSucceeded`` or ``Event/refreshFailed(_:)``.
        case refresh
        /// Redeem this refresh token at the token endpoint, then report ``Event/tokensReceived`` or
        /// ``Event/redeemFailed(_:)``.
        case redeem(RefreshTokenEntry)
        /// Validate and store the tokens the redemption of this refresh token returned, and return them.
        case acceptTokens(RefreshTokenEntry)
        /// Return the refreshed result.
        case returnRefreshed
        /// Return the cached token although the refresh failed.
        case returnFallback(Fallback)
        /// Stop with this error.
        case fail(any Error)
    }

    /// Which cached token a failed refresh may fall back to.
    enum Fallback: Equatable, Sendable {
        /// `refresh_on` had passed but the token is valid; the refresh failed with this code.
        case stillValid(after: MSALError)
        /// The service is unavailable and the token is within its extended lifetime.
        case extendedLifetime
    }

    /// What a refresh may fall back to, decided when the cache was read.
    private enum FallbackRule: Equatable, Sendable {
        case none
        case stillValid
        case extendedLifetime
    }

    private enum State: Sendable {
        case idle
        case consultingMemo
        case lookingUp
        case refreshing(FallbackRule)
        case redeeming(candidates: [RefreshTokenEntry], index: Int)
        case accepting
        case finished
    }

    private let policy: CachedTokenPolicy
    private let forceRefresh: Bool
    private let hasClaims: Bool
    private let correlationId: UUID
    private let homeAccountId: String?
    private var state: State = .idle

    init(policy: CachedTokenPolicy, forceRefresh: Bool, hasClaims: Bool, correlationId: UUID, homeAccountId: String?) {
        self.policy = policy
        self.forceRefresh = forceRefresh
        self.hasClaims = hasClaims
        self.correlationId = correlationId
        self.homeAccountId = homeAccountId
    }

    /// Takes `event` and returns what to do next.
    mutating func next(_ event: Event) -> Action {
        switch (state, event) {
        case (.idle, .started(let memoEligible)):
            if memoEligible, !forceRefresh, !hasClaims {
                state = .consultingMemo
                return .consultMemo
            }
            state = .lookingUp
            return .lookUpCache

        case (.consultingMemo, .memoConsulted(let times, let now)):
            if let times, policy.decide(times, now: now, forceRefresh: false, hasClaims: false) == .useCached {
                state = .finished
                return .returnMemoized
            }
            state = .lookingUp
            return .lookUpCache

        case (.lookingUp, .cacheLookedUp(let times, let now)):
            switch policy.decide(times, now: now, forceRefresh: forceRefresh, hasClaims: hasClaims) {
            case .useCached:
                state = .finished
                return .returnCached
            case .refreshKeepingFallback:
                state = .refreshing(.stillValid)
            case .refresh(extendedFallback: true):
                state = .refreshing(.extendedLifetime)
            case .refresh(extendedFallback: false), .noCachedToken:
                state = .refreshing(.none)
            }
            return .refresh

        case (.refreshing, .candidatesFound(let candidates)):
            guard let first = candidates.first else {
                state = .finished
                var error = MSALErrorInfo(.interactionRequired,
                                          description: "No refresh token is cached for this account and application; sign in interactively.",
                                          correlationId: correlationId)
                error.homeAccountId = homeAccountId
                return .fail(error)
            }
            state = .redeeming(candidates: candidates, index: 0)
            return .redeem(first)

        case (.redeeming(let candidates, let index), .tokensReceived):
            state = .accepting
            return .acceptTokens(candidates[index])

        case (.redeeming(let candidates, let index), .redeemFailed(let error)):
            // A rejected refresh token (revoked, or a family token this client may not use) gives way to the next.
            if let info = error as? MSALErrorInfo, info.code == .interactionRequired,
               candidates[index].key != candidates.last?.key, index + 1 < candidates.count {
                state = .redeeming(candidates: candidates, index: index + 1)
                return .redeem(candidates[index + 1])
            }
            state = .finished
            return .fail(error)

        case (.refreshing, .refreshSucceeded):
            state = .finished
            return .returnRefreshed

        case (.refreshing(let rule), .refreshFailed(let error)):
            state = .finished
            guard let info = error as? MSALErrorInfo else { return .fail(error) }
            switch rule {
            case .stillValid:
                return .returnFallback(.stillValid(after: info.code))
            case .extendedLifetime where info.code == .serverError && info.oauthError == nil:
                return .returnFallback(.extendedLifetime)
            case .extendedLifetime, .none:
                return .fail(error)
            }

        default:
            state = .finished
            return .fail(MSALErrorInfo.internal(.internalErrorUnexpected,
                                                "The silent flow received \(Self.name(event)) out of order.",
                                                correlationId: correlationId))
        }
    }

    /// The event's name, for the out-of-order error (never its payload: it may hold a token).
    private static func name(_ event: Event) -> String {
        switch event {
        case .started: return "started"
        case .memoConsulted: return "memoConsulted"
        case .cacheLookedUp: return "cacheLookedUp"
        case .candidatesFound: return "candidatesFound"
        case .tokensReceived: return "tokensReceived"
        case .redeemFailed: return "redeemFailed"
        case .refreshSucceeded: return "refreshSucceeded"
        case .refreshFailed: return "refreshFailed"
        }
    }
}
