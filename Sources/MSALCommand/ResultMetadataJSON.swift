import Foundation
import MSAL

/// The `metadata` object of `msal token --json`: where the token came from, why the cache was not enough, and where
/// the time went, in snake_case.
enum ResultMetadataJSON {
    /// `token_source` (`cache` or `identity_provider`), `cache_refresh_reason` (`not_applicable`, `force_refresh`,
    /// `no_cached_access_token`, `expired`, `proactively_refreshed`, `claims`), `duration_total_ms`,
    /// `duration_in_cache_ms`, `duration_in_http_ms`, `refresh_on` (seconds since 1970) when the token had one, and
    /// `cache_write_failure` when the token could not be stored in the cache (it is valid, but not kept).
    static func object(_ metadata: MSALResultMetadata) -> [String: Any] {
        var object: [String: Any] = [
            "token_source": tokenSource(metadata.tokenSource),
            "cache_refresh_reason": metadata.cacheRefreshReason.rawValue,
            "duration_total_ms": MSALResultMetadata.milliseconds(metadata.durationTotal),
            "duration_in_cache_ms": MSALResultMetadata.milliseconds(metadata.durationInCache),
            "duration_in_http_ms": MSALResultMetadata.milliseconds(metadata.durationInHTTP),
        ]
        if let failure = metadata.cacheWriteFailure {
            object["cache_write_failure"] = failure
        }
        if let refreshOn = metadata.refreshOn {
            object["refresh_on"] = ExternalNumber.clampedInteger(refreshOn.timeIntervalSince1970)
        }
        return object
    }

    /// The source in snake_case.
    static func tokenSource(_ source: MSALTokenSource) -> String {
        switch source {
        case .cache: return "cache"
        case .identityProvider: return "identity_provider"
        case .broker: return "broker"
        }
    }
}
