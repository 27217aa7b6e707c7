import Foundation
import MSAL
import MSALNIOTransport
import MSALURLSession
import MSALTestSupport

/// An identity provider on 127.0.0.1 that answers instance discovery and OpenID metadata like Entra, and answers
/// whatever `override` says for the requests it claims (the endpoint under attack). Unclaimed requests get a 404.
enum HostileIdentityProvider {
    static let tenant = "contoso.example"
    static let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"

    static func start(_ override: @escaping @Sendable (ReceivedRequest) -> TestAnswer?) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { request in
            if let answer = override(request) { return answer }
            let base = "http://" + (request.header("Host") ?? "127.0.0.1")
            if request.path.hasSuffix("/discovery/instance") {
                let host = URL(string: base)?.host ?? "127.0.0.1"
                return .json(["tenant_discovery_endpoint": "\(base)/\(tenant)/v2.0/.well-known/openid-configuration",
                              "api-version": "1.1",
                              "metadata": [["preferred_network": host, "preferred_cache": host, "aliases": [host]]]])
            }
            if request.path.hasSuffix("/v2.0/.well-known/openid-configuration") {
                let authority = "\(base)/\(tenant)"
                return .json(["authorization_endpoint": "\(authority)/oauth2/v2.0/authorize",
                              "token_endpoint": "\(authority)/oauth2/v2.0/token",
                              "device_authorization_endpoint": "\(authority)/oauth2/v2.0/devicecode",
                              "end_session_endpoint": "\(authority)/oauth2/v2.0/logout",
                              "jwks_uri": "\(authority)/discovery/v2.0/keys",
                              "issuer": "\(authority)/v2.0"])
            }
            return .json(["error": "not_found"], status: 404)
        }
    }

    /// An application for `server`'s authority, on `http`, with a cache of its own.
    static func application(_ server: TestHTTPServer, http: any MSALHTTPClient) throws -> MSALPublicClientApplication {
        let authority = try MSALAuthority(url: URL(string: "\(server.baseURL)/\(tenant)")!)
        let config = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: "http://localhost",
                                                       authority: authority)
        config.httpClient = http
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return try MSALPublicClientApplication(configuration: config)
    }
}

/// A user agent that "signs in" at once: it answers the authorization request with a code and the right state.
struct CodeIssuingAuthenticator: MSALDirectWebAuthenticator {
    func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri,
                                             parameters: ["code": "secret-authorization-code", "state": request.state])
    }
}

/// The transports under test: the Linux default on libcurl, the one on async-http-client, and URLSession.
enum TransportKind: String, CaseIterable, Sendable {
    case curl
    case nio
    case urlSession

    var client: any MSALHTTPClient {
        switch self {
        case .curl: MSALCurlHTTPClient.shared
        case .nio: MSALNIOHTTPClient.shared
        case .urlSession: MSALURLSessionHTTPClient.shared
        }
    }
}
