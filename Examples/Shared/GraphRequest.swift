public import Foundation
public import MSAL

/// A GET request to Microsoft Graph (or any API) with a bearer token.
public enum GraphRequest {
    /// What the API answered.
    public struct Response: Sendable {
        /// The HTTP status code.
        public var statusCode: Int
        /// The body.
        public var body: Data
        /// The response headers.
        public var headers: [String: String] = [:]

        /// The claims JSON of a claims challenge (`401` with `WWW-Authenticate: Bearer error="insufficient_claims",
        /// claims="..."`), sent under continuous access evaluation when the session was revoked; nil otherwise.
        /// Request a token silently with it (`MSALSilentTokenParameters.claimsRequest`) and call once more.
        public var claimsChallenge: String? {
            statusCode == 401 ? MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: headers) : nil
        }

        /// The body as pretty-printed JSON, or as text when it is not JSON.
        public var prettyBody: String {
            if let object = try? JSONSerialization.jsonObject(with: body),
               let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
                return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
            }
            return String(decoding: body, as: UTF8.self)
        }
    }

    /// GETs `url` with `Authorization: Bearer <accessToken>` through `httpClient` (MSAL's default transport when
    /// nil). Redirects are followed up to 5 times; the token goes only to `url`'s own origin (a redirect to another
    /// host, such as a download location, is followed without it; see
    /// `MSALHTTPClient.sendFollowingRedirects(_:maximumRedirects:)`).
    public static func get(_ url: URL, accessToken: String, timeout: TimeInterval = 30,
                           httpClient: (any MSALHTTPClient)? = nil) async throws -> Response {
        let request = MSALHTTPRequest(method: "GET", url: url,
                                      headers: ["Authorization": "Bearer \(accessToken)", "Accept": "application/json"],
                                      timeout: timeout)
        let response = try await (httpClient ?? MSALDefaultHTTPClient.shared).sendFollowingRedirects(request)
        return Response(statusCode: response.statusCode, body: response.body, headers: response.headers)
    }
}
