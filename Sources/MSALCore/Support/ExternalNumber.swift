public import Foundation

/// The one place where numbers from outside the process become `Int`s and `TimeInterval`s: token and device
/// code responses, OAuth error bodies, HTTP headers, and values read back from the cache that are shown to a
/// person. `Int(someDouble)` traps on NaN, on infinities and on values beyond `Int`'s range, so nothing that came
/// from a server or a file is converted that way.
///
/// The contract:
/// - **Lifetimes and intervals** (`expires_in`, `ext_expires_in`, `refresh_in`, the device code's `expires_in` and
///   `interval`): a JSON number, or a string holding a decimal number (Entra's v1 endpoints send strings). An
///   absent member or JSON `null` means "not given". Anything else (text that is not a number, `true`, NaN, an
///   infinity, a negative value) is refused with ``MSALInternalError/internalErrorInvalidResponse``, naming the
///   field but not echoing what the server sent. Finite values above ``maximumLifetime`` (10 years) are clamped
///   to it, so that every date MSAL computes stays well inside what the cache format and `Int` hold.
/// - **`Retry-After` delta-seconds**: a non-negative finite number, clamped to ``maximumLifetime``; anything else
///   is ignored (as if the header were absent).
/// - **Integer codes** sent as JSON numbers (`error_codes`, `foci`): kept as decimal text when the number is a
///   whole number within ±2⁵³ (the integers a JSON number holds exactly); otherwise dropped.
/// - **Display** (log lines, `description`, the `msal` tool's output): ``clampedInteger(_:)`` rounds toward zero
///   and clamps to `Int`'s range; NaN gives 0. It never traps.
public enum ExternalNumber {
    /// The longest lifetime or interval MSAL accepts from a server, in seconds: 10 years. Longer values are
    /// clamped to it.
    public static let maximumLifetime: TimeInterval = 10 * 365 * 24 * 3600

    /// The largest magnitude up to which every whole `Double` is an exact integer (2⁵³).
    static let maximumExactInteger: Double = 9_007_199_254_740_992

    /// `value` rounded toward zero and clamped to `Int`'s range; 0 for NaN. For showing numbers, never for
    /// deciding with them.
    public static func clampedInteger(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        // Double(Int.max) rounds up to 2⁶³, which does not fit: compare against it with >=.
        if value >= Double(Int.max) { return Int.max }
        if value <= Double(Int.min) { return Int.min }
        return Int(value.rounded(.towardZero))
    }

    /// Why a number from outside was refused.
    enum Problem: Error, Equatable, Sendable {
        case notANumber
        case notFinite
        case negative

        var text: String {
            switch self {
            case .notANumber: return "is not a number"
            case .notFinite: return "is not a finite number"
            case .negative: return "is negative"
            }
        }
    }

    /// A lifetime or interval in seconds: nil when absent or `null`, clamped to ``maximumLifetime``, or the
    /// problem that makes it unusable.
    static func seconds(_ value: JSONValue?) -> Result<TimeInterval?, Problem> {
        guard let value else { return .success(nil) }
        let number: Double
        switch value {
        case .null:
            return .success(nil)
        case .number(let n):
            number = n
        case .numberText(let text):
            number = Double(text) ?? .nan
        case .string(let s):
            guard let parsed = decimal(s) else { return .failure(.notANumber) }
            number = parsed
        case .bool, .array, .object:
            return .failure(.notANumber)
        }
        guard number.isFinite else { return .failure(.notFinite) }
        guard number >= 0 else { return .failure(.negative) }
        return .success(min(number, maximumLifetime))
    }

    /// ``seconds(_:)``, throwing ``MSALInternalError/internalErrorInvalidResponse`` for an unusable value.
    /// `field` names the member and `source` the document (for the message), such as `"expires_in"` in
    /// `"the token response"`.
    static func lifetime(_ value: JSONValue?, field: String, in source: String, correlationId: UUID?) throws -> TimeInterval? {
        switch seconds(value) {
        case .success(let seconds):
            return seconds
        case .failure(let problem):
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The \(field) of \(source) \(problem.text); the response was refused.",
                                         correlationId: correlationId)
        }
    }

    /// A `Retry-After` value in delta-seconds (RFC 9110 §10.2.3): nil unless it is a finite, non-negative number;
    /// clamped to ``maximumLifetime``.
    static func retryAfterSeconds(_ text: String) -> TimeInterval? {
        guard let number = decimal(text), number.isFinite, number >= 0 else { return nil }
        return min(number, maximumLifetime)
    }

    /// A JSON number as the decimal text of a whole number, when it is one within ±2⁵³; else nil.
    static func integerText(_ value: Double) -> String? {
        guard value.isFinite, value.rounded(.towardZero) == value, abs(value) <= maximumExactInteger,
              let integer = Int64(exactly: value) else { return nil }
        return String(integer)
    }

    /// Seconds as nanoseconds for `Task.sleep`: 0 for NaN and negative values, at most ``maximumLifetime``.
    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, maximumLifetime) * 1_000_000_000)
    }

    /// Seconds as a `Duration`, bounded as ``nanoseconds(_:)``.
    static func duration(_ seconds: TimeInterval) -> Duration {
        .nanoseconds(Int64(nanoseconds(seconds)))
    }

    /// A decimal number in a string: optional sign, digits, optional fraction and exponent. Unlike
    /// `Double(String)`, words such as `inf` and `nan` and hexadecimal forms are not numbers here.
    static func decimal(_ text: String) -> Double? {
        var sawDigit = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: return nil
            }
        }
        guard sawDigit else { return nil }
        return Double(text)
    }
}
