package import Foundation
import MSALSupport

/// One request to Microsoft's Enterprise SSO extension, as MSAL for iOS/macOS sends it through
/// `ASAuthorizationSingleSignOnProvider` (identity provider URL `https://login.microsoftonline.com/common`): the
/// operation (`requestedOperation`) and a flat dictionary of string values (`authorizationOptions`, one query item
/// each). Keys and values: MSAL for iOS/macOS's common core, `MSIDBrokerOperationRequest` and its subclasses
/// (message protocol 4).
package struct SSOExtensionRequest: Sendable, Equatable {
    /// The identity provider URL the extension is registered for.
    package static let identityProviderURL = URL(string: "https://login.microsoftonline.com/common")!
    /// The message protocol version of the operations.
    package static let protocolVersion = "4"

    /// The operations MSAL uses (`requestedOperation`).
    package enum Operation: String, Sendable, CaseIterable {
        /// An interactive token (`ASAuthorizationOperationLogin`).
        case login
        /// A silent token (`ASAuthorizationOperationRefresh`).
        case refresh
        case getAccounts = "get_accounts_operation"
        case getDeviceInfo = "get_device_info"
        case signOut = "signout_account_operation"
        case getSSOCookies = "get_sso_cookies"

        /// Whether the extension may show its own user interface for the operation.
        package var showsUserInterface: Bool { self == .login }
    }

    package var operation: Operation
    package var items: [String: String]

    /// What every operation carries: the broker key, the protocol version, the library and app versions, the
    /// correlation id, the SDK name.
    package static func base(brokerKey: Data, correlationId: UUID, appName: String?, appVersion: String?) -> [String: String] {
        var items = ["broker_key": Base64URL.encode(brokerKey), "msg_protocol_ver": protocolVersion,
                     "client_version": ClientHeaders.version, "correlation_id": correlationId.uuidString,
                     "client_sdk": "sdk_msal"]
        items["client_app_name"] = appName
        items["client_app_version"] = appVersion
        return items
    }

    /// The parameters of a token operation (`login` or `refresh`).
    package struct Token: Sendable {
        package var authority: String
        package var clientId: String
        package var redirectUri: String
        package var scopes: [String]
        package var claims: String?
        package var clientCapabilities: [String]?
        package var homeAccountId: String?
        package var username: String?
        package var prompt: String?
        package var extraQueryParameters: [String: String] = [:]
        package var extraConsentScopes: [String] = []
        package var forceRefresh = false
        package var instanceAware = false
        /// A proof-of-possession request: `token_type` `Pop` and `req_cnf`, as MSAL for iOS/macOS adds its scheme's
        /// JSON to the operation's configuration (`MSIDConfiguration.m:223-230`, `MSIDAuthenticationSchemePop.m:156-175`).
        package var tokenType: String?
        package var requestConfirmation: String?

        package init(authority: String, clientId: String, redirectUri: String, scopes: [String]) {
            self.authority = authority
            self.clientId = clientId
            self.redirectUri = redirectUri
            self.scopes = scopes
        }
    }

    /// `login` (interactive) or `refresh` (silent; the account is required).
    package static func token(_ operation: Operation, _ token: Token, base: [String: String]) -> SSOExtensionRequest {
        var items = base
        items["authority"] = token.authority
        items["client_id"] = token.clientId
        items["redirect_uri"] = token.redirectUri
        items["scope"] = token.scopes.joined(separator: " ")
        items["extra_oidc_scopes"] = "openid profile offline_access"
        items["provider_type"] = "provider_aad_v2"
        items["instance_aware"] = token.instanceAware ? "1" : "0"
        items["request_sent_timestamp"] = String(format: "%.6f", Date().timeIntervalSince1970)
        if let claims = token.claims { items["claims"] = claims }
        items["token_type"] = token.tokenType
        items["req_cnf"] = token.requestConfirmation
        if let capabilities = token.clientCapabilities, !capabilities.isEmpty {
            items["client_capabilities"] = capabilities.joined(separator: ",")
        }
        if let home = token.homeAccountId { items["home_account_id"] = home }
        if let username = token.username { items["username"] = username }
        if !token.extraQueryParameters.isEmpty {
            items["extra_query_param"] = FormCoding.encode(token.extraQueryParameters.sorted { $0.key < $1.key })
        }
        if operation == .login {
            items["prompt"] = token.prompt ?? ""
            if !token.extraConsentScopes.isEmpty { items["extra_consent_scopes"] = token.extraConsentScopes.joined(separator: " ") }
        } else {
            items["force_refresh"] = token.forceRefresh ? "1" : "0"
        }
        return SSOExtensionRequest(operation: operation, items: items)
    }

    /// `get_accounts_operation`: the accounts the extension holds for `clientId`.
    package static func accounts(clientId: String, signedInOnly: Bool, base: [String: String]) -> SSOExtensionRequest {
        var items = base
        items["client_id"] = clientId
        items["signed_in_accounts_only"] = signedInOnly ? "1" : "0"
        return SSOExtensionRequest(operation: .getAccounts, items: items)
    }

    /// `get_device_info`.
    package static func deviceInfo(base: [String: String]) -> SSOExtensionRequest {
        SSOExtensionRequest(operation: .getDeviceInfo, items: base)
    }

    /// `signout_account_operation`: the account out of the extension (and, with `wipeAccount`, out of every app).
    package static func signOut(homeAccountId: String?, username: String?, clientId: String, authority: String,
                                redirectUri: String, wipeAccount: Bool, wipeCacheForAllAccounts: Bool,
                                base: [String: String]) -> SSOExtensionRequest {
        var items = base
        items["home_account_id"] = homeAccountId
        items["username"] = username
        items["client_id"] = clientId
        items["authority"] = authority
        items["redirect_uri"] = redirectUri
        items["provider_type"] = "provider_aad_v2"
        items["signout_from_browser"] = "0"
        items["clear_sso_extension_cookies"] = "0"
        items["wipe_account"] = wipeAccount ? "1" : "0"
        items["wipe_cache_all_accounts"] = wipeCacheForAllAccounts ? "1" : "0"
        return SSOExtensionRequest(operation: .signOut, items: items)
    }
}
