import Foundation

/// Scope rules shared by every flow.
enum Scopes {
    /// The OpenID Connect scopes MSAL always adds.
    static let reserved: [String] = ["openid", "profile", "offline_access"]
    private static let reservedSet: Set<String> = Set(reserved)

    /// Checks the scopes an application passed: at least one, none empty or containing whitespace, none reserved.
    /// Runs on every silent call, so it only walks the UTF-8 bytes.
    static func validate(_ scopes: [String], correlationId: UUID) throws {
        if scopes.isEmpty {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter, "At least one scope is required.", correlationId: correlationId)
        }
        for scope in scopes {
            var count = 0
            for byte in scope.utf8 {
                count += 1
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                    throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                                 "Scopes must contain no whitespace; pass each scope separately.",
                                                 correlationId: correlationId)
                }
            }
            if count == 0 {
                throw MSALErrorInfo.internal(.internalErrorInvalidParameter, "Scopes must not be empty.", correlationId: correlationId)
            }
            if (count == 6 || count == 7 || count == 14), reservedSet.contains(CacheStrings.lower(scope)) {
                throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                             "The scope \"\(scope)\" is reserved: MSAL always requests openid, profile and offline_access itself.",
                                             correlationId: correlationId)
            }
        }
    }

    /// The `scope` parameter: the application's scopes plus the reserved ones, de-duplicated case-insensitively,
    /// in a stable order.
    static func requestParameter(_ scopes: [String]) -> String {
        var seen = Set<String>()
        var result: [String] = []
        for scope in scopes + reserved where seen.insert(scope.lowercased()).inserted {
            result.append(scope)
        }
        return result.joined(separator: " ")
    }

    /// The granted scopes plus the requested resource-qualified scopes the server granted under their short name:
    /// Entra answers a request for `https://graph.microsoft.com/User.Read` with `scope=User.Read`. Without this,
    /// such a grant would read as declined, and the token would never match its own request in the cache.
    static func effectiveGranted(requested: [String], granted: [String]) -> [String] {
        let grantedSet = Set(granted.map { $0.lowercased() })
        var result = granted
        for scope in requested {
            let lowered = scope.lowercased()
            guard !grantedSet.contains(lowered), let slash = lowered.lastIndex(of: "/"), lowered.contains("://") else { continue }
            let name = lowered[lowered.index(after: slash)...]
            if !name.isEmpty, name != ".default", grantedSet.contains(String(name)) { result.append(scope) }
        }
        return result
    }

    /// The scopes the server did not grant: requested minus granted, compared case-insensitively, ignoring the
    /// reserved scopes and `/.default` requests (whose grant is the app's static permission set).
    static func declined(requested: [String], granted: [String]) -> [String] {
        let grantedSet = Set(granted.map { $0.lowercased() })
        return requested.filter { scope in
            let lowered = scope.lowercased()
            if reservedSet.contains(lowered) || lowered.hasSuffix("/.default") || lowered == ".default" { return false }
            return !grantedSet.contains(lowered)
        }
    }

    /// The scopes to report in a result: the granted scopes without the reserved ones.
    static func resultScopes(_ granted: [String]) -> [String] {
        granted.filter { !reservedSet.contains(CacheStrings.lower($0)) }
    }
}
