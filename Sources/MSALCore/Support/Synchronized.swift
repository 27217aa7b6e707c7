import Foundation
// Re-exported so that modules reaching `LockedBox` through the core also see its members (member import visibility).
// MSALSupport declares nothing public: nothing of it reaches an application.
@_exported import MSALSupport

/// The package's one lock type (`MSALSupport.LockedBox`), under the name the core has always used.
package typealias LockedBox<Value> = MSALSupport.LockedBox<Value>

/// A property stored behind a lock. MSAL's configuration and parameter classes use it to keep MSAL's
/// mutable-property API (`parameters.promptType = .login`) while staying safe to pass between tasks.
@propertyWrapper
public struct MSALLocked<Value: Sendable>: Sendable {
    private let box: LockedBox<Value>
    /// Stores `wrappedValue` behind a lock.
    public init(wrappedValue: Value) { box = LockedBox(wrappedValue) }
    /// The value; reads and writes take the lock.
    public var wrappedValue: Value {
        get { box.get() }
        nonmutating set { box.set(newValue) }
    }
}
