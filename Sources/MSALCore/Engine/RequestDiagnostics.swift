import Foundation

/// What one token call did, collected while it runs: the time spent in HTTP exchanges and in the token cache,
/// where its token came from and why the cache was not enough. The engine turns it into the result's
/// ``MSALResultMetadata``.
///
/// A call installs one with ``measure(_:)``; the traced transport (``TracingHTTPClient``), the cache owner and the
/// flows find it as ``current`` (a task-local value, so it follows the call into the tasks it starts, such as a
/// shared refresh) and add to it.
final class RequestDiagnostics: Sendable {
    /// The collector of the call running in this task, if any.
    @TaskLocal static var current: RequestDiagnostics?

    private struct State {
        var httpNanoseconds: UInt64 = 0
        var cacheNanoseconds: UInt64 = 0
        var tokenSource: MSALTokenSource?
        var refreshReason: MSALCacheRefreshReason = .notApplicable
        var refreshOn: Date?
        var cacheWriteFailure: String?
    }

    private let state = LockedBox(State())
    private let started = ContinuousClock.now

    /// Adds the duration of one HTTP exchange.
    func addHTTP(_ duration: Duration) {
        let nanoseconds = Self.nanoseconds(duration)
        state.withLock { $0.httpNanoseconds &+= nanoseconds }
    }

    /// Adds the duration of one cache read or write.
    func addCache(_ duration: Duration) {
        let nanoseconds = Self.nanoseconds(duration)
        state.withLock { $0.cacheNanoseconds &+= nanoseconds }
    }

    /// Records where the returned token came from.
    func noteSource(_ source: MSALTokenSource) {
        state.withLock { $0.tokenSource = source }
    }

    /// Records why the cached access token was not returned.
    func noteRefreshReason(_ reason: MSALCacheRefreshReason) {
        state.withLock { $0.refreshReason = reason }
    }

    /// Records when the cached token was due for a proactive refresh (`refresh_on`).
    func noteRefreshOn(_ date: Date?) {
        state.withLock { $0.refreshOn = date }
    }

    /// Records that the token obtained could not be stored, and why.
    func noteCacheWriteFailure(_ reason: String) {
        state.withLock { $0.cacheWriteFailure = reason }
    }

    /// The metadata so far; `defaultSource` when no step recorded a source.
    func metadata(defaultSource: MSALTokenSource) -> MSALResultMetadata {
        let total = Self.seconds(Self.nanoseconds(ContinuousClock.now - started))
        return state.withLock { state in
            MSALResultMetadata(tokenSource: state.tokenSource ?? defaultSource,
                               cacheRefreshReason: state.refreshReason,
                               durationTotal: total,
                               durationInCache: Self.seconds(state.cacheNanoseconds),
                               durationInHTTP: Self.seconds(state.httpNanoseconds),
                               refreshOn: state.refreshOn,
                               cacheWriteFailure: state.cacheWriteFailure)
        }
    }

    /// Runs `body` with a new collector as ``current`` and returns its value and the collector.
    static func measure<T: Sendable>(_ body: () async throws -> T) async rethrows -> (T, RequestDiagnostics) {
        let diagnostics = RequestDiagnostics()
        let value = try await $current.withValue(diagnostics) { try await body() }
        return (value, diagnostics)
    }

    /// Times a synchronous step into ``current`` as cache time (nothing is measured without a collector).
    static func timingCache<T>(_ body: () throws -> T) rethrows -> T {
        guard let diagnostics = current else { return try body() }
        let start = ContinuousClock.now
        defer { diagnostics.addCache(ContinuousClock.now - start) }
        return try body()
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }

    private static func seconds(_ nanoseconds: UInt64) -> TimeInterval {
        TimeInterval(nanoseconds) / 1_000_000_000
    }
}
