#if !canImport(Darwin)
import Synchronization
#endif
import MSALSupport

/// A value and its lock kept inside the object that stores them, where the platform allows it: the settings of
/// token parameters, which a silent cache hit reads first, so that the hit touches the parameters' own memory and no
/// second allocation.
///
/// Elsewhere than on Apple platforms it is Swift's `Mutex` (stored inline). On Apple platforms, where `Mutex` needs
/// macOS 15 and iOS 18, it is a ``LockedBox`` (the value and an `os_unfair_lock` in one allocation of their own).
struct SettingsLock<Value: Sendable>: ~Copyable, Sendable {
    #if canImport(Darwin)
    private let box: LockedBox<Value>
    init(_ value: Value) { box = LockedBox(value) }
    #else
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    #endif

    /// Runs `body` with the value under the lock and returns its result. `body` must not take the same lock again.
    @inline(__always)
    func withLock<T: Sendable>(_ body: (inout Value) throws -> T) rethrows -> T {
        #if canImport(Darwin)
        try box.withLock(body)
        #else
        try mutex.withLock { value in try body(&value) }
        #endif
    }
}
