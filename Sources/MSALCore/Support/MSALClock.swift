public import Foundation

/// The time of an application: what MSAL reads to judge token expiry, and what it waits on for every pause it chooses
/// to make (retries and their back-off, device code polling, waits for a busy token cache, lock waits of the
/// partitioned cache). Set it in the configuration to control time in tests (``MSALSystemClock`` by default).
///
/// Bounds on real input and output (a request's timeout, a storage call's time bound) are measured in real time
/// whatever the clock: they bound what another machine does.
public protocol MSALClock: Sendable {
    /// The current time.
    func now() -> Date

    /// Suspends the calling task until `seconds` of this clock's time have passed (at once for zero or less, NaN
    /// included). Throws `CancellationError` when the task is cancelled meanwhile.
    func sleep(seconds: TimeInterval) async throws
}

extension MSALClock {
    /// Sleeps on Swift's `ContinuousClock` (monotonic: unaffected by changes of the wall clock).
    public func sleep(seconds: TimeInterval) async throws {
        try await ContinuousClock().sleep(for: ExternalNumber.duration(seconds))
    }
}

/// The system clock: the wall clock for `now()`, Swift's `ContinuousClock` for sleeps.
public struct MSALSystemClock: MSALClock {
    public init() {}
    public func now() -> Date { Date() }
}
