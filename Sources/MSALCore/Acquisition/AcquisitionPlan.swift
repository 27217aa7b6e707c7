import Foundation

/// A token an acquisition found in the cache (or remembered), and how to return it.
struct CachedToken<Output: Sendable> {
    /// Its expiry times: all the cache policy decides on.
    var times: CachedTokenTimes
    /// The token itself, to tell a token stored meanwhile from the one seen before (never logged).
    var secret: String
    /// The result that returns it; `extendedLifetime` when it is returned past its expiry during an outage.
    var output: (_ extendedLifetime: Bool) -> Output
}

/// One kind of token request, as ``TokenAcquisition`` drives it: where its token is in the cache, and the grant
/// that gets a new one. User tokens (silent requests), app tokens, on-behalf-of tokens and managed identity tokens
/// are plans; so is every grant added later.
protocol AcquisitionPlan: Sendable {
    associatedtype Output: Sendable

    var correlationId: UUID { get }
    /// The cached token must not be returned: a new one is requested (one stored meanwhile by another request
    /// still counts).
    var forceRefresh: Bool { get }
    /// The request carries claims: it always goes to the identity provider.
    var hasClaims: Bool { get }
    /// Concurrent requests with this key share one token request (the key names the kind of token first).
    var flightKey: String { get }
    /// What the token request holds in the cache while it runs (one request per token across processes and
    /// instances), and how long it waits for another's.
    var lockKey: String { get }
    var lockTimeout: TimeInterval { get }
    /// What the token is called in log lines ("access token", "app token").
    var tokenName: String { get }

    /// The cached token for the request, if any (usable or not: the policy decides).
    func lookUp(in cache: any TokenCachePort) async throws -> CachedToken<Output>?
    /// Sends the grant, validates the answer, stores it through `cache` and returns it. `redemption` is the
    /// acquisition's machine, for grants of several steps (the refresh tokens of an account, one after the other).
    func obtain(using cache: any TokenCachePort, redemption: SilentFlowStateMachine) async throws -> Output
}
