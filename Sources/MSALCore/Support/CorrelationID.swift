import Foundation
#if !canImport(Darwin)
import Synchronization
#endif

/// Fast version-4 UUIDs for correlation ids. Correlation ids only tie a request to its logs; they need to be
/// unique, not secret, so they come from a generator seeded once from the system's random source (SplitMix64: a
/// counter advanced by a fixed odd step, each value mixed).
enum CorrelationID {
    private static let step: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static func seed() -> UInt64 {
        var system = SystemRandomNumberGenerator()
        return system.next()
    }
    #if canImport(Darwin)
    // (`Atomic` needs macOS 15 and iOS 18.)
    private static let state = LockedBox<UInt64>(seed())
    private static func advance() -> UInt64 { state.withLock { $0 &+= 2 &* step; return $0 } }
    #else
    private static let state = Atomic<UInt64>(seed())
    private static func advance() -> UInt64 { state.wrappingAdd(2 &* step, ordering: .relaxed).newValue }
    #endif

    /// A new random (version 4) UUID.
    static func next() -> UUID {
        let counter = advance()
        let (a, b) = (mix(counter &- step), mix(counter))
        var bytes = (UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
                     UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
                     UInt8(truncatingIfNeeded: a >> 48), UInt8(truncatingIfNeeded: a >> 56),
                     UInt8(truncatingIfNeeded: b), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16),
                     UInt8(truncatingIfNeeded: b >> 24), UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40),
                     UInt8(truncatingIfNeeded: b >> 48), UInt8(truncatingIfNeeded: b >> 56))
        bytes.6 = (bytes.6 & 0x0F) | 0x40 // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80 // RFC 4122 variant
        return UUID(uuid: bytes)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
