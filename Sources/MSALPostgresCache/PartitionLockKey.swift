import Crypto
import Foundation

/// The 64-bit key of a partition's advisory lock: the first 8 bytes of SHA-256 over the table and the partition.
/// Two partitions share a lock only on a hash collision (about 1 in 2^64 per pair), which costs waiting, never
/// correctness (writes compare versions).
enum PartitionLockKey {
    static func make(namespace: String, partition: String) -> Int64 {
        let digest = SHA256.hash(data: Data("\(namespace)\u{0}\(partition)".utf8))
        return digest.withUnsafeBytes { raw in
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(raw[index]) }
            return Int64(bitPattern: value)
        }
    }
}
