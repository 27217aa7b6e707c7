import Foundation
import MSAL

/// An in-process identity provider for building large caches quickly: it answers discovery, metadata and the
/// token endpoint, and plays the browser for interactive sign-in. It counts every request it receives.
final class BenchIdentityProvider: MSALHTTPClient, MSALWebAuthenticator, @unchecked Sendable {
    let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    let wideTargets: Bool
    private let lock = NSLock()
    private var requests = 0
    private var counter = 0
    private var codes: [String: Int] = [:]
    private var refreshTokens: [String: Int] = [:]

    init(wideTargets: Bool) { self.wideTargets = wideTargets }

    var requestCount: Int { lock.withLock { requests } }

    func username(_ user: Int) -> String { "user\(user)@bench.example" }
    func oid(_ user: Int) -> String { String(format: "00000000-0000-0000-%04x-%012x", user % 0xffff, user) }
    func scopes(resource: Int) -> [String] { ["api://bench-resource-\(resource)/read"] }

    // MARK: MSALWebAuthenticator

    func authenticate(_ request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let url = try request.authorizationURL(request.redirectUri)
        let query = Self.query(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        let hint = query["login_hint"] ?? ""
        let user = Int(hint.dropFirst(4).prefix { $0.isNumber }) ?? 0
        let code = lock.withLock { () -> String in
            counter += 1
            codes["c\(counter)"] = user
            return "c\(counter)"
        }
        nonces.withLock { $0[code] = query["nonce"] }
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri,
                                             parameters: ["code": code, "state": query["state"] ?? "", "client_info": clientInfo(user)])
    }

    private let nonces = BenchLocked<[String: String]>([:])

    // MARK: MSALHTTPClient

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        lock.withLock { requests += 1 }
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
        let form = Self.query(String(decoding: request.body ?? Data(), as: UTF8.self))
        let user: Int?
        var nonce: String?
        switch form["grant_type"] {
        case "authorization_code":
            let code = form["code"] ?? ""
            user = lock.withLock { codes.removeValue(forKey: code) }
            nonce = nonces.withLock { $0.removeValue(forKey: code) }
        case "refresh_token":
            user = lock.withLock { refreshTokens.removeValue(forKey: form["refresh_token"] ?? "") }
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
        let (at, rt) = lock.withLock { () -> (String, String) in
            counter += 1
            refreshTokens["rt\(counter)"] = user
            return ("at\(counter)-" + String(repeating: "x", count: 64), "rt\(counter)")
        }
        return json(["token_type": "Bearer", "scope": granted.joined(separator: " "), "expires_in": 86_400,
                     "ext_expires_in": 86_400, "access_token": at, "refresh_token": rt,
                     "id_token": idToken(user, nonce: nonce, audience: form["client_id"] ?? ""), "client_info": clientInfo(user)])
    }

    private func clientInfo(_ user: Int) -> String {
        Self.base64URL(Data(#"{"uid":"\#(oid(user))","utid":"\#(tenant)"}"#.utf8))
    }

    private func idToken(_ user: Int, nonce: String?, audience: String) -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = ["iss": "https://login.microsoftonline.com/\(tenant)/v2.0", "aud": audience,
                                     "exp": now + 86_400, "iat": now, "tid": tenant, "oid": oid(user),
                                     "sub": "sub\(user)", "preferred_username": username(user), "name": "User \(user)"]
        if let nonce { claims["nonce"] = nonce }
        let header = Self.base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let payload = Self.base64URL((try? JSONSerialization.data(withJSONObject: claims)) ?? Data())
        return "\(header).\(payload).c2ln"
    }

    private func json(_ object: [String: Any]) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"],
                         body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func query(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if let name = parts.first { result[name] = parts.count > 1 ? parts[1] : "" }
        }
        return result
    }
}

final class BenchLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
