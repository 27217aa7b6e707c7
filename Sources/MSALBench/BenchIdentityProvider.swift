import Foundation
import MSAL

/// An in-process identity provider for building large caches quickly: it answers discovery, metadata and the
/// token endpoint, and plays the browser for interactive sign-in. It counts every request it receives.
final class BenchIdentityProvider: MSALHTTPClient, MSALDirectWebAuthenticator, Sendable {
    let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    let wideTargets: Bool
    private struct State {
        var requests = 0
        var counter = 0
        var codes: [String: Int] = [:]
        var nonces: [String: String] = [:]
        var refreshTokens: [String: Int] = [:]
    }

    private let state = LockedBox(State())

    init(wideTargets: Bool) { self.wideTargets = wideTargets }

    var requestCount: Int { state.withLock { $0.requests } }

    func username(_ user: Int) -> String { "user\(user)@bench.example" }
    func oid(_ user: Int) -> String { String(format: "00000000-0000-0000-%04x-%012x", user % 0xffff, user) }
    func scopes(resource: Int) -> [String] { ["api://bench-resource-\(resource)/read"] }

    // MARK: MSALWebAuthenticator

    func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let query = FormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        let hint = query["login_hint"] ?? ""
        let user = Int(hint.dropFirst(4).prefix { $0.isNumber }) ?? 0
        let code = state.withLock { state -> String in
            state.counter += 1
            let code = "c\(state.counter)"
            state.codes[code] = user
            state.nonces[code] = query["nonce"]
            return code
        }
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri,
                                             parameters: ["code": code, "state": query["state"] ?? "", "client_info": clientInfo(user)])
    }

    // MARK: MSALHTTPClient

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        state.withLock { $0.requests += 1 }
        let path = request.url.path
        if path.hasSuffix("/discovery/instance") {
            let host = request.url.host ?? "login.microsoftonline.com"
            return json(["tenant_discovery_endpoint": "https://\(host)/\(tenant)/v2.0/.well-known/openid-configuration",
                         "api-version": "1.1",
                         "metadata": [["preferred_network": host, "preferred_cache": host, "aliases": [host]]]])
        }
        if path.hasSuffix("/.well-known/openid-configuration") {
            let base = request.url.absoluteString.replacingOccurrences(of: "/v2.0/.well-known/openid-configuration", with: "")
            let host = request.url.host ?? ""
            return json(["authorization_endpoint": base + "/oauth2/v2.0/authorize", "token_endpoint": base + "/oauth2/v2.0/token",
                         "issuer": "https://\(host)/{tenantid}/v2.0"])
        }
        let form = FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
        let user: Int?
        var nonce: String?
        switch form["grant_type"] {
        case "authorization_code":
            let code = form["code"] ?? ""
            let grant = state.withLock { ($0.codes.removeValue(forKey: code), $0.nonces.removeValue(forKey: code)) }
            user = grant.0
            nonce = grant.1
        case "refresh_token":
            user = state.withLock { $0.refreshTokens.removeValue(forKey: form["refresh_token"] ?? "") }
        default:
            user = nil
        }
        guard let user else {
            return MSALHTTPResponse(statusCode: 400, body: Data(#"{"error":"invalid_grant"}"#.utf8))
        }
        let requested = (form["scope"] ?? "").split(separator: " ").map(String.init)
            .filter { !["openid", "profile", "offline_access"].contains($0) }
        var granted = requested
        if wideTargets {
            granted += requested.map { $0.replacingOccurrences(of: "/read", with: "/write") }
            granted += requested.map { $0.replacingOccurrences(of: "/read", with: "/admin") }
        }
        let (at, rt) = state.withLock { state -> (String, String) in
            state.counter += 1
            state.refreshTokens["rt\(state.counter)"] = user
            return ("at\(state.counter)-" + String(repeating: "x", count: 64), "rt\(state.counter)")
        }
        return json(["token_type": "Bearer", "scope": granted.joined(separator: " "), "expires_in": 86_400,
                     "ext_expires_in": 86_400, "access_token": at, "refresh_token": rt,
                     "id_token": idToken(user, nonce: nonce, audience: form["client_id"] ?? ""), "client_info": clientInfo(user)])
    }

    private func clientInfo(_ user: Int) -> String {
        Base64URL.encode(Data(#"{"uid":"\#(oid(user))","utid":"\#(tenant)"}"#.utf8))
    }

    private func idToken(_ user: Int, nonce: String?, audience: String) -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = ["iss": "https://login.microsoftonline.com/\(tenant)/v2.0", "aud": audience,
                                     "exp": now + 86_400, "iat": now, "tid": tenant, "oid": oid(user),
                                     "sub": "sub\(user)", "preferred_username": username(user), "name": "User \(user)"]
        if let nonce { claims["nonce"] = nonce }
        let header = Base64URL.encode(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode((try? JSONSerialization.data(withJSONObject: claims)) ?? Data())
        return "\(header).\(payload).c2ln"
    }

    private func json(_ object: [String: Any]) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"],
                         body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}
