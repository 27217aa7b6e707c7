public import MSALCore
import Foundation

/// Ages the tokens of a stored cache, so that a test can see what an application does once they expire, without
/// waiting and without changing any clock.
public enum MSALTokenCacheAging {
    /// Makes every access token in `storage` expired `secondsAgo` seconds ago (and drops their `refresh_on`), under
    /// the storage's exclusive lock; everything else in the document is kept.
    ///
    /// - Returns: how many access tokens were changed.
    @discardableResult
    public static func expireAccessTokens(in storage: any MSALTokenCacheStorage, secondsAgo: Int = 60) throws -> Int {
        try storage.withExclusiveAccess {
            guard let data = try storage.read()?.data,
                  var document = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return 0 }
            let past = String(Int(Date().timeIntervalSince1970) - secondsAgo)
            var tokens = document["AccessToken"] as? [String: [String: Any]] ?? [:]
            for key in tokens.keys {
                tokens[key]?["expires_on"] = past
                tokens[key]?["extended_expires_on"] = past
                tokens[key]?["refresh_on"] = nil
            }
            document["AccessToken"] = tokens
            _ = try storage.write(try JSONSerialization.data(withJSONObject: document))
            return tokens.count
        }
    }
}
