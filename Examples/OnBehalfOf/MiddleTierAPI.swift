import Foundation
import Hummingbird
import MSAL
import MSALSamples

/// The middle-tier API: `GET /api/me` validates the caller's Entra access token (signature against the
/// authority's keys, issuer, audience, expiry, the `access_as_user` scope), gets a Graph token on the caller's behalf,
/// and answers the caller's Graph profile. 401 for a missing or invalid token, 403 for a missing scope, 502 when
/// Graph or the identity provider fails. Tokens are never logged.
struct MiddleTierAPI: Sendable {
    let app: MSALConfidentialClientApplication
    let audiences: [String]
    let graphEndpoint: String

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("api/me") { request, _ -> Response in
            await me(authorization: request.headers[.authorization])
        }
        return router
    }

    func me(authorization: String?) async -> Response {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else {
            return Self.json(.unauthorized, ["error": "missing_token"], challenge: true)
        }
        let caller: MSALValidatedAccessToken
        do {
            caller = try await app.validateAccessToken(String(authorization.dropFirst(7)), audiences: audiences,
                                                       requiredScopes: ["access_as_user"])
        } catch let error as MSALErrorInfo {
            let forbidden = error.errorDescription.contains("does not carry the scope")
            return Self.json(forbidden ? .forbidden : .unauthorized,
                             ["error": forbidden ? "insufficient_scope" : "invalid_token"], challenge: !forbidden)
        } catch {
            return Self.json(.unauthorized, ["error": "invalid_token"], challenge: true)
        }
        do {
            let graph = try await app.acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(
                scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: caller.rawValue))
            let base = graphEndpoint.hasSuffix("/") ? graphEndpoint : graphEndpoint + "/"
            let response = try await GraphRequest.get(URL(string: base + "v1.0/me")!, accessToken: graph.accessToken)
            guard response.statusCode == 200,
                  let profile = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
                return Self.json(.badGateway, ["error": "graph_failed", "status": response.statusCode])
            }
            return Self.json(.ok, ["displayName": profile["displayName"] ?? "", "userPrincipalName": profile["userPrincipalName"] ?? "",
                                   "calledOnBehalfOf": caller.username ?? ""])
        } catch let error as MSALErrorInfo {
            return Self.json(.badGateway, ["error": error.oauthError ?? "on_behalf_of_failed"])
        } catch {
            return Self.json(.badGateway, ["error": "on_behalf_of_failed"])
        }
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: Any], challenge: Bool = false) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json"]
        if challenge { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
