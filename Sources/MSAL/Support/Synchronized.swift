import Foundation

/// A value guarded by a lock, so that MSAL's mutable parameter objects can be shared across tasks safely.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    @discardableResult
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}

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
