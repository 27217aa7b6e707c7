/// Comparing secrets (client secrets, `state`, header values) without an early exit on the first differing byte.
package enum ConstantTime {
    /// Whether `lhs` and `rhs` have the same UTF-8 bytes; the time depends only on the shorter length.
    package static func equals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<min(left.count, right.count) { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
