import Foundation

/// Small string helpers the cache uses on its hot paths. They avoid allocating when nothing changes.
enum CacheStrings {
    /// `s` lowercased (ASCII letters only, as identifiers and hosts are ASCII). Returns `s` itself,
    /// without allocating, when it holds no uppercase ASCII letter. Non-ASCII text falls back to `lowercased()`.
    @inline(__always)
    static func lower(_ s: String) -> String {
        let needsWork = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where (byte &- 0x41) < 26 || byte >= 0x80 { return true }
            return false
        } ?? true
        return needsWork ? s.lowercased() : s
    }

    /// Whether `a` and `b` are equal ignoring ASCII case. `lowered` must already be lowercased.
    @inline(__always)
    static func equalsLowercased(_ a: String, _ lowered: String) -> Bool {
        let result = a.utf8.withContiguousStorageIfAvailable { x -> Bool? in
            lowered.utf8.withContiguousStorageIfAvailable { y -> Bool in
                guard x.count == y.count else { return false }
                for i in 0..<x.count {
                    let c = x[i]
                    if c != y[i] && ((c &- 0x41) >= 26 || c | 0x20 != y[i]) { return false }
                }
                return true
            } ?? nil
        }
        if let result = result ?? nil { return result }
        return a.lowercased() == lowered
    }

    /// Python's `"-".join(parts).lower()`.
    static func cacheKey(_ parts: String...) -> String {
        lower(parts.joined(separator: "-"))
    }

    /// Whether `a` sorts before `b` by Unicode code points (UTF-8 byte order), as Python's `sorted()` does.
    @inline(__always)
    static func codePointLess(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x -> Bool? in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        if let result = fast ?? nil { return result }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// An epoch-seconds timestamp as the cache stores it: a JSON string of integer seconds.
///
/// The text read from the file is kept, so a value another SDK wrote (`"1700000000.0"`, or a JSON number)
/// is written back unchanged unless MSAL rewrites the entry.
struct CacheTimestamp: Sendable, Hashable {
    /// The text written to the file.
    let text: String
    /// Whole seconds since 1970.
    let seconds: Int64

    /// A timestamp MSAL creates: written as integer seconds.
    init(seconds: Int64) {
        self.seconds = seconds
        self.text = String(seconds)
    }

    /// A timestamp for `date`, truncated to whole seconds and saturated to what the cache format holds (±9×10¹⁵
    /// seconds, the integers every SDK's JSON reader keeps exactly), so that no date, however it was computed,
    /// traps here (a NaN date is the epoch).
    init(_ date: Date) {
        self.init(seconds: Self.saturatedSeconds(date.timeIntervalSince1970))
    }

    /// The largest magnitude of seconds a timestamp holds.
    static let maximumSeconds: Int64 = 9_000_000_000_000_000

    /// `seconds` rounded down and clamped to ±``maximumSeconds``; 0 for NaN.
    static func saturatedSeconds(_ seconds: Double) -> Int64 {
        guard !seconds.isNaN else { return 0 }
        if seconds >= Double(maximumSeconds) { return maximumSeconds }
        if seconds <= -Double(maximumSeconds) { return -maximumSeconds }
        return Int64(seconds.rounded(.down))
    }

    /// Reads a timestamp from a string or number JSON value; nil when it holds no number.
    init?(json: JSONValue) {
        switch json {
        case .string(let s):
            if let whole = Self.digits(s) ?? Int64(s) {
                seconds = whole
            } else if let real = Double(s), real.isFinite, abs(real) < 9e15 {
                seconds = Int64(real.rounded(.down))
            } else {
                return nil
            }
            text = s
        case .number, .numberText:
            guard let n = json.doubleValue, n.isFinite, abs(n) < 9e15 else { return nil }
            seconds = Int64(n.rounded(.down))
            text = String(seconds)
        default:
            return nil
        }
    }

    /// `s` as a non-negative integer when it is 1 to 18 ASCII digits (the usual case), else nil.
    @inline(__always)
    private static func digits(_ s: String) -> Int64? {
        s.utf8.withContiguousStorageIfAvailable { bytes -> Int64? in
            guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
            var value: Int64 = 0
            for byte in bytes {
                let digit = byte &- 0x30
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
            }
            return value
        } ?? nil
    }

    /// The timestamp as a date.
    var date: Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
