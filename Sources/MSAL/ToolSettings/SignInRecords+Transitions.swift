import Foundation
import MSALSupport

/// How the sign-in records change: one pure function per event, so that every transition is tested without a file,
/// and one locked read-modify-write (``SignInRecords/update(_:_:)``) that applies it.
extension SignInRecords {
    /// What happened to the records.
    package enum Event: Sendable, Equatable {
        /// `msal login` signed `homeAccountId` in with `entry`'s settings: recorded (replacing an earlier record of
        /// the account) and made active.
        case signedIn(homeAccountId: String, entry: Entry)
        /// `msal switch` made `homeAccountId` active. A record of the account is kept as it is; `unrecorded` is
        /// recorded only for an account that has none (signed in by another tool sharing the cache).
        case switched(homeAccountId: String, unrecorded: Entry)
        /// `msal logout` signed `homeAccountId` out, or its account is no longer in its token cache: its record is
        /// forgotten and, when it was active, the most recently active other record becomes active.
        case signedOut(homeAccountId: String)
    }

    /// The records after `event`.
    package func applying(_ event: Event) -> SignInRecords {
        var next = self
        switch event {
        case .signedIn(let id, var entry):
            entry.recency = nextRecency
            next.accounts[id] = entry
            next.active = id
        case .switched(let id, let unrecorded):
            var entry = accounts[id] ?? unrecorded
            entry.recency = nextRecency
            next.accounts[id] = entry
            next.active = id
        case .signedOut(let id):
            next.accounts[id] = nil
            if active == id || next.active.map({ next.accounts[$0] == nil }) == true {
                next.active = next.mostRecent
            }
        }
        return next
    }

    /// The home account id of the most recently active record (ties broken by id, so the choice is the same in
    /// every process); nil when there is none.
    package var mostRecent: String? {
        accounts.max { left, right in
            let (a, b) = (left.value.recency ?? 0, right.value.recency ?? 0)
            return a != b ? a < b : left.key > right.key
        }?.key
    }

    private var nextRecency: Int {
        (accounts.values.compactMap(\.recency).max() ?? 0) + 1
    }

    /// Applies `event` to the records in `file` under the file's lock, so that concurrent `msal` processes never lose
    /// each other's update; returns the records written.
    @discardableResult
    package static func update(_ file: URL, _ event: Event) throws(ToolSettingsError) -> SignInRecords {
        do {
            return try ExclusiveFileLock.withLock(of: file.path) {
                let next = load(file).applying(event)
                try next.save(file)
                return next
            }
        } catch let error as ToolSettingsError {
            throw error
        } catch {
            throw ToolSettingsError("Cannot record the sign-in in \(file.path): \(error)")
        }
    }
}
