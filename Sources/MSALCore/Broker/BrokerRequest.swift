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
        /// A proof-of-possession request's `popParams` (``PoPParameters``); nil for a bearer token.
        package var popParams: PoPParameters?

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
            if let popParams { object["popParams"] = popParams.json }
            return object
        }
    }

    /// A proof-of-possession request's `popParams`: the HTTP request the token is for, as msalruntime writes them
    /// (`PopParametersToJson`: `httpMethod`, `uriHost`, `uriPath`, `nonce`, `clientClaims`, `homeAccountId`), with
    /// `authenticationScheme` `pop` and the application's key id `kid`, which other broker clients send and brokers
    /// that bind the token to the client's key read (`linux-broker.md` §1.6 and §3).
    package struct PoPParameters: Sendable, Equatable {
        package var httpMethod: String
        package var uriHost: String
        package var uriPath: String
        package var nonce: String?
        package var homeAccountId: String?
        package var kid: String

        package init(httpMethod: String, uriHost: String, uriPath: String, nonce: String?, homeAccountId: String?,
                     kid: String) {
            self.httpMethod = httpMethod
            self.uriHost = uriHost
            self.uriPath = uriPath
            self.nonce = nonce
            self.homeAccountId = homeAccountId
            self.kid = kid
        }

        var json: [String: Any] {
            var object: [String: Any] = ["authenticationScheme": "pop", "httpMethod": httpMethod, "uriHost": uriHost,
                                         "uriPath": uriPath, "kid": kid]
            object["nonce"] = nonce
            object["homeAccountId"] = homeAccountId
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

    /// `generateSignedHttpRequest`: a signed request for the HTTP request `popParams` describes, made by the broker
    /// with its key for the token it holds for the client and account (`{"clientId", "popParams"}`, the account in
    /// `popParams.homeAccountId`).
    package static func signedHTTPRequest(clientId: String, popParams: PoPParameters) -> BrokerRequest {
        BrokerRequest(method: .generateSignedHttpRequest, object: ["clientId": clientId, "popParams": popParams.json])
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
