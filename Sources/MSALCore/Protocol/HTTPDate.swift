import Foundation

/// Parses HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two
/// obsolete forms a recipient must still accept, RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`).
///
/// Used for the identity provider's clock (`Date`) and for `Retry-After`. The parser is strict about field
/// ranges and never traps: anything else gives nil.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` names, or nil when it is not an HTTP date.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8.prefix(64))
        guard bytes.count < 64 else { return nil }
        let words = bytes.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ",") })
            .map { String(decoding: $0, as: UTF8.self) }
        if words.count == 6, words[5] == "GMT" {
            // IMF-fixdate: day-name, DD Mon YYYY HH:MM:SS GMT
            return make(day: words[1], month: words[2], year: words[3], time: words[4], twoDigitYear: false)
        }
        if words.count == 4, words[3] == "GMT" {
            // RFC 850: day-name, DD-Mon-YY HH:MM:SS GMT
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { return nil }
            return make(day: parts[0], month: parts[1], year: parts[2], time: words[2], twoDigitYear: true)
        }
        if words.count == 5 {
            // asctime: day-name Mon D HH:MM:SS YYYY
            return make(day: words[2], month: words[1], year: words[4], time: words[3], twoDigitYear: false)
        }
        return nil
    }

    private static func make(day: String, month: String, year: String, time: String, twoDigitYear: Bool) -> Date? {
        guard let monthIndex = months.firstIndex(of: month.lowercased()),
              let dayValue = number(day, digits: 1...2), (1...31).contains(dayValue),
              var yearValue = number(year, digits: twoDigitYear ? 2...2 : 4...4) else { return nil }
        if twoDigitYear { yearValue += yearValue < 70 ? 2000 : 1900 }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard clock.count == 3,
              let hour = number(clock[0], digits: 2...2), hour < 24,
              let minute = number(clock[1], digits: 2...2), minute < 60,
              let second = number(clock[2], digits: 2...2), second < 61 else { return nil }
        let days = daysSinceEpoch(year: yearValue, month: monthIndex + 1, day: dayValue)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// A decimal number of `digits` ASCII digits, or nil.
    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        let bytes = Array(text.utf8)
        guard digits.contains(bytes.count) else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (years 0...9999).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
