import MSALSupport
import Foundation
import MSALTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import MSALEmulator
@testable import MSALEmulatorCore

struct Reply {
    let status: Int
    let headers: [String: String]
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var location: String { headers["location"] ?? "" }
    /// Query or fragment parameters of the redirect.
    var redirectParameters: [String: String] {
        guard let components = URLComponents(string: location) else { return [:] }
        let text = components.percentEncodedQuery ?? components.percentEncodedFragment ?? ""
        return EmulatorRequest.parseForm(Substring(text)).single
    }
    /// Value of the hidden `ctx` field of the page.
    var ctx: String? {
        guard let range = text.range(of: "name=\"ctx\" value=\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }
}

/// A tiny HTTP client over the emulator's plain-HTTP listener.
struct TestClient {
    let base: URL
    let session = NoRedirectFetcher.makeSession()

    init(_ emulator: IdentityEmulator) {
        base = emulator.httpURL
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send("GET", path, body: nil, headers: headers)
    }

    func post(_ path: String, form: [(String, String)], headers: [String: String] = [:]) async throws -> Reply {
        var headers = headers
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        return try await send("POST", path, body: Data(URLText.query(form).utf8), headers: headers)
    }

    func send(_ method: String, _ path: String, body: Data?, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body
        request.httpShouldHandleCookies = false
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var lowered: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { lowered[key.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: lowered, body: data)
    }
}

enum Fixture {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-emulator-tests"
    static let challenge = Base64URL.encode(Data(SHA256Helper.digest(verifier)))
    static let redirect = "http://localhost:53123"

    static func authorizePath(_ emulator: IdentityEmulator, scope: String = "openid profile offline_access User.Read", extra: String = "") -> String {
        "/\(emulator.tenant)/oauth2/v2.0/authorize?client_id=\(emulator.clientId)&response_type=code&redirect_uri=\(URLText.encode(redirect))"
            + "&scope=\(URLText.encode(scope))&state=st4te&nonce=n0nce&code_challenge=\(challenge)&code_challenge_method=S256&client_info=1\(extra)"
    }

    /// Signs in through the pages and returns the redirect with the code.
    static func signIn(_ client: TestClient, _ emulator: IdentityEmulator, scope: String = "openid profile offline_access User.Read") async throws -> Reply {
        let page = try await client.get(authorizePath(emulator, scope: scope))
        return try await client.post("/login", form: [
            ("ctx", page.ctx ?? ""), ("step", "signin"), ("username", emulator.username), ("password", emulator.password), ("action", "signin"),
        ])
    }

    static func redeem(_ client: TestClient, _ emulator: IdentityEmulator, code: String, verifier: String = Fixture.verifier) async throws -> Reply {
        try await client.post("/\(emulator.tenant)/oauth2/v2.0/token", form: [
            ("client_id", emulator.clientId), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
            ("code_verifier", verifier), ("scope", "openid profile offline_access User.Read"), ("client_info", "1"),
        ])
    }

    static func claims(_ jwt: String) -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
