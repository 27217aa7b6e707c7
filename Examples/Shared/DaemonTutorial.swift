import Foundation
public import MSAL

/// What the daemon example needs: an app registration with a credential, the tenant, and the Graph endpoint.
public struct DaemonSettings: Sendable {
    public var clientId: String
    /// The authority URL of the tenant, e.g. `https://login.microsoftonline.com/contoso.onmicrosoft.com`.
    public var authority: String
    public var credential: MSALClientCredential
    public var graphEndpoint: String
    public var cacheStorage: (any MSALTokenCacheStorage)?

    public init(clientId: String, authority: String, credential: MSALClientCredential, graphEndpoint: String,
                cacheStorage: (any MSALTokenCacheStorage)? = nil) {
        self.clientId = clientId
        self.authority = authority
        self.credential = credential
        self.graphEndpoint = graphEndpoint
        self.cacheStorage = cacheStorage
    }
}

/// The daemon: an app token for Microsoft Graph (client credentials), `GET /v1.0/users` with it, and a second
/// token request answered from the cache. Prints what happens, never a token.
public struct DaemonTutorial: Sendable {
    public let settings: DaemonSettings
    public let log: @Sendable (String) -> Void

    public init(settings: DaemonSettings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
    }

    /// Runs the steps; returns the user principal names Graph listed.
    public func run() async throws -> [String] {
        guard let authorityURL = URL(string: settings.authority) else {
            throw MSALErrorInfo.invalidParameter("The authority \(settings.authority) is not a URL.")
        }
        let config = MSALConfidentialClientApplicationConfig(clientId: settings.clientId,
                                                             clientCredential: settings.credential,
                                                             authority: try MSALAuthority(url: authorityURL))
        if let storage = settings.cacheStorage { config.cacheConfig.storage = storage }
        let app = try MSALConfidentialClientApplication(configuration: config)
        let parameters = MSALClientCredentialParameters(scopes: ["https://graph.microsoft.com/.default"])
        let token = try await app.acquireTokenForClient(with: parameters)
        log("Got an app token for Microsoft Graph in tenant \(token.tenantId) (from the \(token.tokenSource == .cache ? "cache" : "identity provider")).")
        let base = settings.graphEndpoint.hasSuffix("/") ? settings.graphEndpoint : settings.graphEndpoint + "/"
        guard let url = URL(string: base + "v1.0/users") else {
            throw MSALErrorInfo.invalidParameter("The Graph endpoint \(settings.graphEndpoint) is not a URL.")
        }
        let response = try await GraphRequest.get(url, accessToken: token.accessToken)
        guard response.statusCode == 200,
              let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              let users = object["value"] as? [[String: Any]] else {
            log("Graph /v1.0/users answered HTTP \(response.statusCode):\n\(response.prettyBody)")
            throw MSALErrorInfo.invalidParameter("Graph did not list the users (HTTP \(response.statusCode)).")
        }
        let names = users.compactMap { $0["userPrincipalName"] as? String }
        log("Graph /v1.0/users lists \(names.count) users: \(names.joined(separator: ", "))")
        let again = try await app.acquireTokenForClient(with: parameters)
        log("A second request was answered from the \(again.tokenSource == .cache ? "cache, with no network" : "identity provider").")
        return names
    }
}
