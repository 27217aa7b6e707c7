import Foundation
import MSAL
import MSALTesting
import MSALTestSupport

/// A test clock whose sleeps run the hook a test sets (to act at each wait of a flow, such as approving a device
/// code sign-in after the second poll); without a hook, a sleep moves the clock as ``MSALTestClock`` does.
final class HookedClock: MSALClock, @unchecked Sendable {
    let base: MSALTestClock
    let hook = LockedBox<(@Sendable (TimeInterval) async throws -> Void)?>(nil)

    init(_ base: MSALTestClock) { self.base = base }

    func now() -> Date { base.now() }

    func sleep(seconds: TimeInterval) async throws {
        if let hook = hook.get() { try await hook(seconds) } else { try await base.sleep(seconds: seconds) }
    }
}

extension MSALPublicClientApplication {
    /// The application's clock when it is a ``HookedClock``.
    var hookedClock: HookedClock? { configuration.clock as? HookedClock }
}
