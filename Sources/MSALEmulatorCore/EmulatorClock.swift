public import Foundation
import MSALSupport

/// The emulator's clock. Moving it forward ages what the emulator has issued, without changing the time it writes
/// into what it issues next.
///
/// The emulated time (``now``) is the machine's time plus every ``advance(by:)``. The emulator judges by it what it
/// has issued: access tokens (at Graph and as on-behalf-of assertions), refresh tokens, authorization and device
/// codes, sessions, federated tokens, Azure Arc keys. Advancing by an hour therefore expires a one-hour access
/// token issued before.
///
/// The times the emulator writes — `iat`, `nbf`, `exp` and `auth_time` of tokens, `expires_on`, the HTTP `Date`,
/// error timestamps — are the emulated time minus the advances, which for anything issued now is the machine's
/// time. A client, a web API or another OpenID library that checks token times by its own (machine) clock keeps
/// accepting new tokens after an advance; MSAL, which judges id tokens by the `Date` of the token response, sees
/// no skew. Client assertions, which clients sign with their own clock, are accepted when valid by either the
/// emulated or the machine's time.
public final class EmulatorClock: Sendable {
    private let offsetBox = LockedBox<TimeInterval>(0)

    /// Creates a clock that follows the machine's time.
    public init() {}

    /// The emulated current time: the machine's time plus every advance.
    public var now: Date { reading.now }

    /// How far the emulated time is ahead of the machine's: the sum of the advances.
    public var offset: TimeInterval { offsetBox.get() }

    /// Moves the emulated time forward (or back, with a negative interval): everything issued so far becomes that
    /// much older.
    public func advance(by seconds: TimeInterval) {
        offsetBox.withLock { $0 += seconds }
    }

    /// Returns to the machine's time.
    public func reset() {
        offsetBox.withLock { $0 = 0 }
    }

    /// The emulated time and the offset, read together.
    var reading: (now: Date, offset: TimeInterval) {
        let offset = offsetBox.get()
        return (Date().addingTimeInterval(offset), offset)
    }

    /// The time written for the current instant (the machine's time).
    package var stampedNow: Date {
        let reading = self.reading
        return reading.now.addingTimeInterval(-reading.offset)
    }
}
