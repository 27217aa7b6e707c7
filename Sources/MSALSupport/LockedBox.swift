// Foundation re-exports the platform's C library (Darwin, Glibc, Musl): the POSIX mutex below is spelled once.
public import Foundation

/// A value guarded by a lock, so that mutable state can be shared across tasks and threads safely.
///
/// The package's lock type: the client, the loopback listener, the emulator and the tools all use it (the settings of
/// token parameters, which a silent cache hit reads first, are kept in the parameters themselves where the platform
/// has `Mutex`: `SettingsLock`).
/// The value and the lock live in one allocation (a `ManagedBuffer` whose header is the value and whose one element
/// is the platform's lock: `os_unfair_lock` on Apple platforms, a `pthread_mutex_t` elsewhere), so taking the lock
/// touches the memory the value is in. Its methods are inlinable, so that each use is specialized for its value type
/// (no generic metadata looked up on hot paths such as a silent cache hit). Copies share the same storage.
package struct LockedBox<Value>: @unchecked Sendable {
    @usableFromInline let storage: LockedBoxStorage<Value>

    /// Stores `value` behind the lock.
    @inlinable package init(_ value: Value) { storage = LockedBoxStorage.make(value) }

    /// The value, read under the lock.
    @inlinable package func get() -> Value { withLock { $0 } }
    /// Replaces the value under the lock.
    @inlinable package func set(_ newValue: Value) { withLock { $0 = newValue } }
    /// Runs `body` with the value under the lock and returns its result. `body` must not take the same lock again.
    @inlinable @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withUnsafeMutablePointers { value, lock in
            LockPrimitive.lock(lock)
            defer { LockPrimitive.unlock(lock) }
            return try body(&value.pointee)
        }
    }
}

/// The one allocation of a ``LockedBox``: the value as the header, the lock as the only element (a stable address,
/// as the platform locks require).
@usableFromInline
final class LockedBoxStorage<Value>: ManagedBuffer<Value, LockPrimitive.Raw> {
    @inlinable
    static func make(_ value: Value) -> LockedBoxStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in value }
        let storage = unsafeDowncast(buffer, to: LockedBoxStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { LockPrimitive.initialize($0) }
        return storage
    }

    @inlinable
    deinit {
        withUnsafeMutablePointerToElements { LockPrimitive.destroy($0) }
    }
}

/// The lock operations on a POSIX mutex at a stable address (every platform the package builds for has one).
@usableFromInline
enum LockPrimitive {
    @usableFromInline typealias Raw = pthread_mutex_t
    @inlinable static func initialize(_ lock: UnsafeMutablePointer<Raw>) {
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }
    @inlinable static func destroy(_ lock: UnsafeMutablePointer<Raw>) {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
    }
    @inlinable static func lock(_ lock: UnsafeMutablePointer<Raw>) {
        let status = pthread_mutex_lock(lock)
        precondition(status == 0, "pthread_mutex_lock failed: \(status)")
    }
    @inlinable static func unlock(_ lock: UnsafeMutablePointer<Raw>) {
        let status = pthread_mutex_unlock(lock)
        precondition(status == 0, "pthread_mutex_unlock failed: \(status)")
    }
}
