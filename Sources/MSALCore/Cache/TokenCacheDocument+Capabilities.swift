import Foundation

/// Continuous access evaluation (CAE) in a shared cache: an access token requested with client capabilities (the
/// `xms_cc` claim, such as `cp1`) may be revoked by the resource at any time with a claims challenge, which only an
/// application declaring those capabilities can answer. Two applications (or two processes) sharing one cache, one
/// with capabilities and one without, must therefore never take each other's access tokens.
///
/// The unified cache format has no field for this and MSAL for Python and .NET do not key access tokens by
/// capabilities, so MSAL for Swift adds one, kept by the other SDKs as an unknown field:
///
/// - an access token obtained with capabilities carries `"xms_cc": "cp1"` (the capabilities sorted, deduplicated,
///   comma-joined) and is stored under MSAL for Python's key followed by `-xms_cc=cp1`, so that it never shares an
///   entry with the token of an application without capabilities;
/// - an application without capabilities uses only tokens without `xms_cc`;
/// - an application with capabilities uses tokens with its own `xms_cc` **and tokens without one** (written by MSAL
///   for Python, .NET, the Azure CLI, or an application without capabilities): such a token is valid for it, as in
///   MSAL for Python and .NET, which do not filter on capabilities; only a request carrying a claims challenge
///   bypasses the cache;
/// - writing a token replaces only the overlapping tokens with the same `xms_cc`.
///
/// Refresh tokens, ID tokens and accounts are shared as before: a refresh token is not bound to capabilities, each
/// application asks for its own access token with it.
extension TokenCacheDocument {
    /// The access token field that holds the capabilities the token was requested with.
    static let clientCapabilitiesField = "xms_cc"

    /// The stored form of `capabilities`: sorted, deduplicated, comma-joined; nil when there are none.
    static func capabilitiesMarker(_ capabilities: [String]?) -> String? {
        let values = Set((capabilities ?? []).filter { !$0.isEmpty }).sorted()
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    /// Whether an application declaring the capabilities of `marker` (none when nil) may use `entry`: a token
    /// requested with those capabilities, or (for an application with capabilities) one requested without any.
    @inline(__always)
    static func usableWithCapabilities(_ entry: AccessTokenEntry, _ marker: String?) -> Bool {
        let stored = entry.extraFields[clientCapabilitiesField]
        guard let marker else { return stored == nil }
        return stored == nil || stored == .string(marker)
    }

    /// Whether `entry` was requested with exactly the capabilities of `marker` (none when nil).
    @inline(__always)
    static func matchesCapabilities(_ entry: AccessTokenEntry, _ marker: String?) -> Bool {
        let stored = entry.extraFields[clientCapabilitiesField]
        guard let marker else { return stored == nil }
        return stored == .string(marker)
    }

    /// The key of an access token requested with `marker`: MSAL for Python's key, followed by `-xms_cc=<marker>`.
    static func accessTokenKey(_ pythonKey: String, capabilities marker: String?) -> String {
        guard let marker else { return pythonKey }
        return pythonKey + "-" + CacheStrings.lower(clientCapabilitiesField + "=" + marker)
    }
}
