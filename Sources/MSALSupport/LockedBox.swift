package import Foundation

/// A value guarded by a lock, so that mutable state can be shared across tasks and threads safely.
///
/// The one lock type of the package: the client, the loopback listener, the emulator and the tools all use it.
/// It is an `NSLock` beside the value, and its methods are inlinable, so that each use is specialized for its value
/// type (no generic metadata looked up on hot paths such as a silent cache hit).
package final class LockedBox<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// Stores `value` behind the lock.
    @inlinable package init(_ value: Value) { self.value = value }

    /// The value, read under the lock.
    @inlinable package func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
    /// Replaces the value under the lock.
    @inlinable package func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    /// Runs `body` with the value under the lock and returns its result. `body` must not take the same lock again.
    @inlinable @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}
