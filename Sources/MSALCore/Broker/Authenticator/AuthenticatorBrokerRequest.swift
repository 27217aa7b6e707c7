package import Foundation
import MSALSupport

/// What MSAL keeps while Microsoft Authenticator has the request (MSAL for iOS/macOS's resume state): what the
/// response must match.
package struct AuthenticatorResumeState: Sendable, Equatable, Codable {
    package var authority: String
    package var clientId: String
    package var redirectUri: String
    package var correlationId: UUID
    /// A new value per request, which the broker answers back.
    package var brokerNonce: String
    package var scopes: [String]
    /// A proof-of-possession request's `token_type` (`Pop`) and `req_cnf`, kept as MSAL for iOS/macOS keeps them in
    /// its resume dictionary (`MSIDBrokerTokenRequest.m`, `defaultResumeDictionaryContents`); nil for a bearer token.
    package var tokenType: String? = nil
    package var requestConfirmation: String? = nil

    /// The state as kept in the broker key store (``MSALBrokerKeyStore/setPendingRequest(_:)``).
    package var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    /// The state kept in the broker key store; nil when it is not one (bounded: it is read from storage).
    package init?(encoded data: Data) {
        guard data.count <= 16_384, let state = try? JSONDecoder().decode(Self.self, from: data) else { return nil }
        self = state
    }

    package init(authority: String, clientId: String, redirectUri: String, correlationId: UUID, brokerNonce: String,
                 scopes: [String]) {
        self.authority = authority
        self.clientId = clientId
        self.redirectUri = redirectUri
        self.correlationId = correlationId
        self.brokerNonce = brokerNonce
        self.scopes = scopes
    }
}

/// The request MSAL for iOS/macOS opens in Microsoft Authenticator (the app-to-app broker): `msauthv2://broker?…`,
/// a form-encoded query with message protocol version 3 and the application's broker key, which the broker encrypts
/// its answer with. (Keys and encodings: MSAL for iOS/macOS's common core, `MSIDBrokerTokenRequest` and
/// `MSIDDefaultBrokerTokenRequest`.)
package struct AuthenticatorBrokerRequest: Sendable {
    /// The scheme the request opens.
    package static let scheme = "msauthv2"
    /// The scheme whose presence says the broker supports nonces (it is checked, never opened).
    package static let nonceScheme = "msauthv3"
    /// The message protocol version of requests and answers.
    package static let protocolVersion = "3"
    /// The bundle ids of Microsoft Authenticator (release, and its internal build).
    package static let brokerBundleIds: Set<String> = ["com.microsoft.azureauthenticator", "com.microsoft.azureauthenticator-df"]

    package var authority: String
    package var clientId: String
    package var redirectUri: String
    package var correlationId: UUID
    /// The application's resource scopes, and the OpenID Connect scopes apart.
    package var scopes: [String]
    package var oidcScopes: [String] = ["openid", "profile", "offline_access"]
    /// The 32-byte AES key the broker encrypts its answer with.
    package var brokerKey: Data
    package var brokerNonce: String = UUID().uuidString
    package var clientVersion: String = ClientHeaders.version
    package var claims: String?
    package var clientCapabilities: [String]?
    package var loginHint: String?
    package var homeAccountId: String?
    package var username: String?
    /// `login`, `consent`, `select_account`, `create`; nil for the default.
    package var prompt: String?
    package var extraQueryParameters: [String: String] = [:]
    package var extraConsentScopes: [String] = []
    /// The token the broker gave this client before, if any.
    package var applicationToken: String?
    package var clientAppName: String?
    package var clientAppVersion: String?
    /// Asks for a refresh token bound to the device (``MSALGlobalConfig/shouldRequestBoundAppRefreshTokens``).
    package var boundRefreshTokenRedeem = false
    /// A proof-of-possession request: `token_type` (`Pop`, MSAL's `MSIDAuthSchemeParamFromType`) and `req_cnf`
    /// (base64url of `{"kid": …}` of the application's key), sent as MSAL for iOS/macOS sends its scheme parameters
    /// (`MSIDBrokerTokenRequest.m:155-180`).
    package var tokenType: String?
    package var requestConfirmation: String?

    /// The request's query items, in a fixed order; empty values left out.
    package var pairs: [(String, String)] {
        var pairs: [(String, String)] = [
            ("authority", authority), ("client_id", clientId), ("redirect_uri", redirectUri),
            ("correlation_id", correlationId.uuidString), ("broker_key", Base64URL.encode(brokerKey)),
            ("broker_nonce", brokerNonce), ("client_version", clientVersion),
            ("scope", scopes.joined(separator: " ")), ("extra_oidc_scopes", oidcScopes.joined(separator: " ")),
            ("msg_protocol_ver", Self.protocolVersion),
        ]
        // The claims are form-encoded once before the query is (MSAL for iOS/macOS's double encoding).
        if let claims { pairs.append(("claims", FormCoding.escape(claims))) }
        if let clientCapabilities, !clientCapabilities.isEmpty {
            pairs.append(("client_capabilities", clientCapabilities.joined(separator: ",")))
        }
        if let applicationToken { pairs.append(("application_token", applicationToken)) }
        if let clientAppName { pairs.append(("client_app_name", clientAppName)) }
        if let clientAppVersion { pairs.append(("client_app_version", clientAppVersion)) }
        if let homeAccountId { pairs.append(("home_account_id", homeAccountId)) }
        if let username { pairs.append(("username", username)) }
        if let loginHint { pairs.append(("login_hint", loginHint)) }
        if !extraQueryParameters.isEmpty {
            pairs.append(("extra_query_param", FormCoding.encode(extraQueryParameters.sorted { $0.key < $1.key })))
        }
        if !extraConsentScopes.isEmpty { pairs.append(("extra_consent_scopes", extraConsentScopes.joined(separator: " "))) }
        if let prompt { pairs.append(("prompt", prompt)) }
        if boundRefreshTokenRedeem { pairs.append(("bound_rt_redeem", "1")) }
        if let tokenType { pairs.append(("token_type", tokenType)) }
        if let requestConfirmation { pairs.append(("req_cnf", requestConfirmation)) }
        return pairs.filter { !$0.1.isEmpty }
    }

    /// The universal link Microsoft Authenticator answers, for an application whose redirect URI is itself an `https`
    /// universal link (MSAL for iOS/macOS's `MSIDBrokerProtocolTypeUniversalLink`).
    package static let universalLink = "https://login.microsoftonline.com/applebroker/msauthv2"

    /// Whether the request is opened as a universal link: the application's redirect URI is `https`.
    package var isUniversalLink: Bool { redirectUri.lowercased().hasPrefix("https:") }

    /// `msauthv2://broker?…`, or `https://login.microsoftonline.com/applebroker/msauthv2?…` for an `https`
    /// redirect URI.
    package var url: URL {
        URL(string: (isUniversalLink ? Self.universalLink : "\(Self.scheme)://broker") + "?" + FormCoding.encode(pairs))!
    }

    /// What the response must match.
    package var resumeState: AuthenticatorResumeState {
        var state = AuthenticatorResumeState(authority: authority, clientId: clientId, redirectUri: redirectUri,
                                             correlationId: correlationId, brokerNonce: brokerNonce, scopes: scopes)
        state.tokenType = tokenType
        state.requestConfirmation = requestConfirmation
        return state
    }

    /// A new broker key: 32 random bytes.
    package static func makeBrokerKey() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
