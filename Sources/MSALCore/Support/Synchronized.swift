import Foundation
#if !canImport(Darwin)
import Synchronization
#endif

#if canImport(Darwin)
/// A value guarded by a lock, so that MSAL's mutable parameter objects can be shared across tasks safely.
package final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
    package func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}
#else
/// A value guarded by a lock, so that MSAL's mutable parameter objects can be shared across tasks safely.
/// The lock is stored inline: one allocation per box.
package final class LockedBox<Value>: @unchecked Sendable {
    private let mutex: Mutex<UnsafeValue>

    /// Lets a non-`Sendable` value live in the mutex; the box only hands it out under the lock.
    private struct UnsafeValue: @unchecked Sendable { var value: Value }

    package init(_ value: Value) { mutex = Mutex(UnsafeValue(value: value)) }

    package func get() -> Value { mutex.withLock { $0.value } }
    package func set(_ newValue: Value) { mutex.withLock { $0.value = newValue } }
    @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try mutex.withLock { (state: inout UnsafeValue) throws -> UncheckedResult<T> in
            UncheckedResult(value: try body(&state.value))
        }.value
    }

    private struct UncheckedResult<T>: @unchecked Sendable { var value: T }
}
#endif

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

/// The clock MSAL reads. Tests substitute their own.
public protocol MSALClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system clock.
public struct MSALSystemClock: MSALClock {
    public init() {}
    public func now() -> Date { Date() }
}
