public import Foundation

/// Why a token request did not return the access token it found in the cache.
public enum MSALCacheRefreshReason: String, Sendable, CaseIterable {
    /// The cache was not consulted for an access token (interactive sign-in, device code, authorization code),
    /// or its token was returned.
    case notApplicable = "not_applicable"
    /// The request asked to skip the cached token (``MSALSilentTokenParameters/forceRefresh``).
    case forceRefresh = "force_refresh"
    /// No access token for the request was cached.
    case noCachedAccessToken = "no_cached_access_token"
    /// The cached access token had expired, or expires within ``MSALPublicClientApplicationConfig/tokenExpirationBuffer``.
    case expired
    /// The cached access token was still valid, but its `refresh_in` time had passed.
    case proactivelyRefreshed = "proactively_refreshed"
    /// The request carried claims (a claims challenge), which a cached token cannot satisfy.
    case claims
}

/// How a result was obtained: where its token came from, why the cache was not enough, and where the time went.
///
/// Every ``MSALResult`` and ``MSALAppTokenResult`` carries one:
///
/// ```swift
/// let result = try await application.acquireTokenSilent(with: parameters)
/// if result.metadata.tokenSource == .identityProvider {
///     print("refreshed (\(result.metadata.cacheRefreshReason)) in \(result.metadata.durationInHTTP) s of HTTP")
/// }
/// ```
///
/// Durations are wall-clock time measured on a monotonic clock, in seconds; they never include time spent waiting
/// for the user (the browser, the device code page) outside HTTP requests.
public struct MSALResultMetadata: Sendable, Equatable, CustomStringConvertible {
    /// Where the token came from: ``MSALTokenSource/cache`` when no token request was sent.
    public let tokenSource: MSALTokenSource
    /// Why the cached access token was not returned; ``MSALCacheRefreshReason/notApplicable`` for a cache hit and
    /// for flows that do not read cached access tokens (interactive, device code).
    public let cacheRefreshReason: MSALCacheRefreshReason
    /// The whole call, in seconds.
    public let durationTotal: TimeInterval
    /// Time spent reading and writing the token cache (including its storage), in seconds.
    public let durationInCache: TimeInterval
    /// Time spent in HTTP exchanges with the identity provider (discovery, metadata, token requests), in seconds.
    public let durationInHTTP: TimeInterval
    /// When the cached token the call looked at was due for a proactive refresh (`refresh_in`), if it had such a time.
    public let refreshOn: Date?
    /// Why the token obtained could not be stored in the token cache (the storage stayed locked by another program
    /// past every wait, or refused the write); nil when it was stored, or nothing was to be stored.
    ///
    /// The token is valid and returned, but the cache does not hold it: the next call will not find it, and a
    /// refresh token the identity provider rotated is lost, so the user may have to sign in again.
    public let cacheWriteFailure: String?

    /// Creates metadata. Applications normally only receive it.
    public init(tokenSource: MSALTokenSource, cacheRefreshReason: MSALCacheRefreshReason = .notApplicable,
                durationTotal: TimeInterval = 0, durationInCache: TimeInterval = 0, durationInHTTP: TimeInterval = 0,
                refreshOn: Date? = nil, cacheWriteFailure: String? = nil) {
        self.cacheWriteFailure = cacheWriteFailure
        self.tokenSource = tokenSource
        self.cacheRefreshReason = cacheRefreshReason
        self.durationTotal = durationTotal
        self.durationInCache = durationInCache
        self.durationInHTTP = durationInHTTP
        self.refreshOn = refreshOn
    }

    public var description: String {
        "MSALResultMetadata(tokenSource: \(tokenSource.rawValue), cacheRefreshReason: \(cacheRefreshReason.rawValue), "
            + "total: \(Self.milliseconds(durationTotal)) ms, cache: \(Self.milliseconds(durationInCache)) ms, "
            + "http: \(Self.milliseconds(durationInHTTP)) ms"
            + (cacheWriteFailure == nil ? ")" : ", not stored in the token cache)")
    }

    /// `seconds` as whole milliseconds.
    public static func milliseconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min((seconds * 1000).rounded(), 1e15))
    }
}
