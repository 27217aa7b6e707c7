package import Foundation

/// The request JSON of each broker method, shaped as Microsoft's own client (msalruntime) writes it: the token and
/// sign-out methods carry an `authParameters` object, the account list a client id and redirect URI.
/// (Reference: the broker's JSON contract, `../shared/reference/linux-broker.md` §1.6.)
package struct BrokerRequest: Sendable {
    /// msalruntime's `Msai::AuthorizationType` values the broker accepts.
    package enum AuthorizationType: Int, Sendable {
        case cachedRefreshToken = 1
        case interactive = 6
        case prtSsoCookie = 8
        case signOutSilent = 12
    }

    /// What a token or sign-out request names.
    package struct AuthParameters: Sendable {
        package var authorizationType: AuthorizationType
        package var authority: String
        package var clientId: String
        package var redirectUri: String
        package var scopes: [String]
        /// The claims JSON (a claims challenge), as text.
        package var claims: String?
        /// The account the request is for (silent, sign-out; interactive with a hint).
        package var account: BrokerAccount?
        /// The user name to sign in (interactive `login_hint`).
        package var username: String?
        /// `select_account`, `login`, `consent` or `none` (interactive).
        package var prompt: String?
        /// Extra query parameters for the authorization request (`msal_client_sku`, `msal_client_ver`, ...).
        package var additionalParameters: [String: String] = [:]

        package init(authorizationType: AuthorizationType, authority: String, clientId: String, redirectUri: String,
                     scopes: [String], claims: String? = nil, account: BrokerAccount? = nil, username: String? = nil,
                     prompt: String? = nil, additionalParameters: [String: String] = [:]) {
            self.authorizationType = authorizationType
            self.authority = authority
            self.clientId = clientId
            self.redirectUri = redirectUri
            self.scopes = scopes
            self.claims = claims
            self.account = account
            self.username = username
            self.prompt = prompt
            self.additionalParameters = additionalParameters
        }

        var json: [String: Any] {
            var object: [String: Any] = [
                "authorizationType": authorizationType.rawValue, "authority": authority, "clientId": clientId,
                "redirectUri": redirectUri, "requestedScopes": scopes,
                "additionalQueryParametersForAuthorization": additionalParameters,
            ]
            if let claims { object["decodedClaims"] = claims }
            if let account { object["account"] = account.json }
            if let username = username ?? account?.username { object["username"] = username }
            if let prompt { object["prompt"] = prompt }
            return object
        }
    }

    /// The method the request goes to.
    package let method: MSALBrokerMethod
    /// The request's JSON text.
    package let body: Data

    /// `getAccounts`: the accounts the broker holds for the client.
    package static func accounts(clientId: String, redirectUri: String) -> BrokerRequest {
        BrokerRequest(method: .getAccounts, object: ["clientId": clientId, "redirectUri": redirectUri])
    }

    /// `acquireTokenSilently` for `parameters` (authorization type 1, the account set).
    package static func silentToken(_ parameters: AuthParameters) -> BrokerRequest {
        BrokerRequest(method: .acquireTokenSilently, object: ["authParameters": parameters.json])
    }

    /// `acquireTokenInteractively` for `parameters` (authorization type 6). The broker shows its own window; no
    /// parent window is named.
    package static func interactiveToken(_ parameters: AuthParameters) -> BrokerRequest {
        BrokerRequest(method: .acquireTokenInteractively, object: ["authParameters": parameters.json])
    }

    /// `signOutSilently` for the account of `parameters` (authorization type 12).
    package static func signOut(_ parameters: AuthParameters) -> BrokerRequest {
        BrokerRequest(method: .signOutSilently, object: ["authParameters": parameters.json])
    }

    /// `cancelInteractiveFlow`: ends the interactive flow of the call's correlation id (its argument), closing the
    /// broker's window. The body is msalruntime's `ErrorToJson` of the reason (`BrokerRequestManager::CancelInteractiveFlow`):
    /// status 8, the application cancelled.
    package static func cancelInteractive(reason: String) -> BrokerRequest {
        BrokerRequest(method: .cancelInteractiveFlow, object: ["error": [
            "status": BrokerError.Status.applicationCanceled.rawValue, "subStatus": 0, "errorCode": 0, "tag": 0,
            "context": reason,
        ]])
    }

    /// `getLinuxBrokerVersion`, telling the broker this library's version.
    package static func version(clientVersion: String) -> BrokerRequest {
        BrokerRequest(method: .getLinuxBrokerVersion, object: ["msalCppVersion": clientVersion])
    }

    private init(method: MSALBrokerMethod, object: [String: Any]) {
        self.method = method
        // Only strings, integers, arrays and objects of them: serialization cannot fail.
        self.body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}
