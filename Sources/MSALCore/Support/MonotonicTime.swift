import Foundation

/// Nanoseconds of a monotonic clock (unaffected by changes of the wall clock), for timing the fastest calls (a
/// remembered cache hit): on Linux read with `clock_gettime(CLOCK_MONOTONIC)` itself, which costs a fraction of
/// `DispatchTime.now()`'s conversion; elsewhere `DispatchTime`.
enum MonotonicTime {
    @inline(__always)
    static func nanoseconds() -> UInt64 {
        #if os(Linux)
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(truncatingIfNeeded: spec.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: spec.tv_nsec)
        #else
        return DispatchTime.now().uptimeNanoseconds
        #endif
    }
}
