import Foundation

/// Scope rules shared by every flow.
enum Scopes {
    /// The OpenID Connect scopes MSAL always adds.
    static let reserved: [String] = ["openid", "profile", "offline_access"]
    private static let reservedSet: Set<String> = Set(reserved)

    /// Checks the scopes an application passed: at least one, none empty, none reserved.
    static func validate(_ scopes: [String], correlationId: UUID) throws {
        let trimmed = scopes.map { $0.trimmingCharacters(in: .whitespaces) }
        if trimmed.isEmpty {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter, "At least one scope is required.", correlationId: correlationId)
        }
        if trimmed.contains(where: { $0.isEmpty || $0.contains(" ") }) {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                         "Scopes must be non-empty and contain no spaces; pass each scope separately.",
                                         correlationId: correlationId)
        }
        let reservedPassed = trimmed.filter { reservedSet.contains($0.lowercased()) }
        if !reservedPassed.isEmpty {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                         "The scopes \(reservedPassed) are reserved: MSAL always requests openid, profile and offline_access itself.",
                                         correlationId: correlationId)
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
        granted.filter { !reservedSet.contains($0.lowercased()) }
    }
}
