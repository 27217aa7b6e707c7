import Foundation
#if !canImport(Darwin)
import Synchronization
#endif

#if canImport(Darwin)
/// A value guarded by a lock, so that mutable state can be shared across tasks and threads safely.
///
/// The one lock type of the package: the client, the loopback listener, the emulator and the tools all use it.
/// (`Synchronization.Mutex` needs macOS 15; on Apple platforms the box uses `NSLock`.)
package final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Stores `value` behind the lock.
    package init(_ value: Value) { self.value = value }

    /// The value, read under the lock.
    package func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
    /// Replaces the value under the lock.
    package func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    /// Runs `body` with the value under the lock and returns its result. `body` must not take the same lock again.
    @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}
#else
/// A value guarded by a lock, so that mutable state can be shared across tasks and threads safely.
///
/// The one lock type of the package: the client, the loopback listener, the emulator and the tools all use it.
/// The lock is stored inline: one allocation per box.
package final class LockedBox<Value>: @unchecked Sendable {
    private let mutex: Mutex<UnsafeValue>

    /// Lets a non-`Sendable` value live in the mutex; the box only hands it out under the lock.
    private struct UnsafeValue: @unchecked Sendable { var value: Value }

    /// Stores `value` behind the lock.
    package init(_ value: Value) { mutex = Mutex(UnsafeValue(value: value)) }

    /// The value, read under the lock.
    package func get() -> Value { mutex.withLock { $0.value } }
    /// Replaces the value under the lock.
    package func set(_ newValue: Value) { mutex.withLock { $0.value = newValue } }
    /// Runs `body` with the value under the lock and returns its result. `body` must not take the same lock again.
    @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try mutex.withLock { (state: inout UnsafeValue) throws -> UncheckedResult<T> in
            UncheckedResult(value: try body(&state.value))
        }.value
    }

    private struct UncheckedResult<T>: @unchecked Sendable { var value: T }
}
#endif
