import Foundation

/// The challenge types an app declares to native authentication, in MSAL for iOS/macOS's order, `redirect` always
/// last (the server answers `redirect` when it needs something the app cannot do).
package struct NativeAuthChallengeTypes: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// An emailed one-time passcode (`oob`).
    package static let oneTimePasscode = NativeAuthChallengeTypes(rawValue: 1)
    /// A password (`password`).
    package static let password = NativeAuthChallengeTypes(rawValue: 2)

    /// The `challenge_type` form value: `oob password redirect` (the declared types, then `redirect`).
    package var parameter: String {
        var types: [String] = []
        if contains(.oneTimePasscode) { types.append("oob") }
        if contains(.password) { types.append("password") }
        return (types + ["redirect"]).joined(separator: " ")
    }
}

/// The scopes a native sign-in asks for: the app's, then `openid profile offline_access` (deduplicated, the app's
/// first), as MSAL for iOS/macOS sends them.
package enum NativeAuthScopes {
    package static func parameter(_ scopes: [String]) -> String {
        var seen = Set<String>()
        return (scopes + ["openid", "profile", "offline_access"]).filter { seen.insert($0.lowercased()).inserted }
            .joined(separator: " ")
    }
}

/// The form fields every native-authentication grant sends: the client, the grant type and the flow's continuation
/// token first; the scopes (with MSAL's OIDC scopes), `client_info` and the claims request last.
enum NativeAuthGrantForm {
    static func fields(clientId: String, grantType: String, continuationToken: String, _ middle: [(String, String)],
                       scopes: [String], claims: String?, challengeTypes: NativeAuthChallengeTypes? = nil) -> [(String, String)] {
        var pairs = [("client_id", clientId), ("grant_type", grantType), ("continuation_token", continuationToken)] + middle
        pairs += [("scope", NativeAuthScopes.parameter(scopes)), ("client_info", "true")]
        if let challengeTypes { pairs.append(("challenge_type", challengeTypes.parameter)) }
        if let claims { pairs.append(("claims", claims)) }
        return pairs
    }
}

/// The password step of a native sign-in: `grant_type=password` with the flow's continuation token.
package struct NativeAuthPasswordGrant: TokenGrant, Equatable {
    static let grantType = "password"

    package var clientId: String
    package var continuationToken: String
    package var username: String
    package var password: String
    package var scopes: [String]
    package var challengeTypes: NativeAuthChallengeTypes
    package var claims: String?

    package init(clientId: String, continuationToken: String, username: String, password: String, scopes: [String],
                 challengeTypes: NativeAuthChallengeTypes, claims: String?) {
        self.clientId = clientId
        self.continuationToken = continuationToken
        self.username = username
        self.password = password
        self.scopes = scopes
        self.challengeTypes = challengeTypes
        self.claims = claims
    }

    var formParameters: [(String, String)] {
        NativeAuthGrantForm.fields(clientId: clientId, grantType: Self.grantType, continuationToken: continuationToken,
                                   [("username", username), ("password", password)], scopes: scopes, claims: claims,
                                   challengeTypes: challengeTypes)
    }
}

/// The one-time passcode step of a native sign-in: `grant_type=oob` with the flow's continuation token; with
/// `secondFactor`, the code of a second factor (`grant_type=mfa_oob`, as MSAL for iOS/macOS sends it).
package struct NativeAuthCodeGrant: TokenGrant, Equatable {
    static let grantType = "oob"
    static let secondFactorGrantType = "mfa_oob"

    package var clientId: String
    package var continuationToken: String
    package var code: String
    package var scopes: [String]
    package var claims: String?
    package var secondFactor: Bool

    package init(clientId: String, continuationToken: String, code: String, scopes: [String], claims: String?,
                 secondFactor: Bool = false) {
        self.clientId = clientId
        self.continuationToken = continuationToken
        self.code = code
        self.scopes = scopes
        self.claims = claims
        self.secondFactor = secondFactor
    }

    var formParameters: [(String, String)] {
        NativeAuthGrantForm.fields(clientId: clientId, grantType: secondFactor ? Self.secondFactorGrantType : Self.grantType,
                                   continuationToken: continuationToken, [("oob", code)], scopes: scopes, claims: claims)
    }
}

/// The sign-in after a sign-up, a password reset or a strong method's registration: `grant_type=continuation_token`
/// with the flow's last token (no second code or password).
package struct NativeAuthContinuationGrant: TokenGrant, Equatable {
    static let grantType = "continuation_token"

    package var clientId: String
    package var continuationToken: String
    package var username: String
    package var scopes: [String]
    package var challengeTypes: NativeAuthChallengeTypes
    package var claims: String?

    package init(clientId: String, continuationToken: String, username: String, scopes: [String],
                 challengeTypes: NativeAuthChallengeTypes, claims: String?) {
        self.clientId = clientId
        self.continuationToken = continuationToken
        self.username = username
        self.scopes = scopes
        self.challengeTypes = challengeTypes
        self.claims = claims
    }

    var formParameters: [(String, String)] {
        NativeAuthGrantForm.fields(clientId: clientId, grantType: Self.grantType, continuationToken: continuationToken,
                                   [("username", username)], scopes: scopes, claims: claims, challengeTypes: challengeTypes)
    }
}
