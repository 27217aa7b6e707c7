import Foundation

extension TokenCacheDocument {
    /// When the last useful token of the document expires: with a refresh token, `refreshTokenLifetime` from
    /// `now` (a refresh token's life is renewed by use, and every write is a use); else the latest expiry of its
    /// access tokens (extended expiry included); `now` when it holds neither.
    func usefulUntil(now: Date, refreshTokenLifetime: TimeInterval) -> Date {
        if refreshTokenEntries.count > 0 { return now.addingTimeInterval(refreshTokenLifetime) }
        var latest = now
        for entry in accessTokens.all {
            let seconds = max(entry.expiresOnValue.seconds, entry.extendedExpiresOnValue?.seconds ?? .min)
            let expiry = Date(timeIntervalSince1970: TimeInterval(seconds))
            if expiry > latest { latest = expiry }
        }
        return latest
    }

    /// `base` (a serialized document, possibly empty) with every entry of `newer` added, replacing entries with
    /// the same key, as a parsed document.
    static func merging(_ newer: Data, into base: Data) throws -> TokenCacheDocument {
        func object(_ data: Data) -> [String: Any] {
            guard !data.isEmpty else { return [:] }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        }
        var merged = object(base)
        for (section, value) in object(newer) {
            if let entries = value as? [String: Any], var existing = merged[section] as? [String: Any] {
                for (key, entry) in entries { existing[key] = entry }
                merged[section] = existing
            } else {
                merged[section] = value
            }
        }
        return try parse(try JSONSerialization.data(withJSONObject: merged))
    }
}
