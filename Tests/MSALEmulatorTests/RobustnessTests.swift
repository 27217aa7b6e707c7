import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bad input never crashes the emulator and never gets a 500")
struct RobustnessTests {
    static let paths = [
        "/common/discovery/instance", "/common/v2.0/.well-known/openid-configuration", "/common/discovery/v2.0/keys",
        "/common/oauth2/v2.0/authorize", "/common/oauth2/v2.0/token", "/common/oauth2/v2.0/devicecode", "/common/oauth2/v2.0/logout",
        "/login", "/devicelogin", "/v1.0/me", "/v1.0/users/x", "/tfp/a/b2c_1_x/oauth2/v2.0/token", "/_emulator/faults", "/%FF%FE/%00",
    ]

    static let junk: [String] = [
        "", "=", "&&&", "grant_type=", "grant_type=authorization_code&code=%ZZ", "client_id=\u{0}&scope=\u{202E}",
        "scope=" + String(repeating: "a/", count: 3000), "grant_type=refresh_token&refresh_token=" + String(repeating: "x", count: 10_000),
        "client_id=0b6f1c3a-52d4-4e07-9a3b-7c1e2d4f6a80&grant_type=urn:ietf:params:oauth:grant-type:device_code&code=<script>",
        "ctx=../../etc/passwd&step=consent&action=accept", "otc=" + String(repeating: "Z", count: 500) + "&step=code",
        String(repeating: "a=b&", count: 5000),
    ]

    @Test func junkRequestsGetProperErrors() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        for path in Self.paths {
            for body in Self.junk {
                let post = try await client.send("POST", path, body: Data(body.utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
                #expect(post.status != 500 && post.status >= 200 && post.status < 500, "POST \(path) → \(post.status)")
                let query = body.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)?.prefix(2000) ?? ""
                let get = try await client.send("GET", path + "?" + query, body: nil, headers: ["Authorization": "Bearer " + body.prefix(100), "Cookie": "ESTSAUTH=" + body.prefix(50)])
                #expect(get.status != 500 && get.status < 500, "GET \(path) → \(get.status)")
            }
        }
        let huge = try await client.send("POST", "/common/oauth2/v2.0/token", body: Data(count: 2 << 20), headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(huge.status == 413)
        let json = try await client.send("POST", "/common/oauth2/v2.0/token", body: Data("{\"grant_type\":1}".utf8), headers: ["Content-Type": "application/json"])
        #expect(json.status == 400)
        #expect(try await client.get("/common/discovery/v2.0/keys").status == 200)
    }
}

/// The control API against a page in the developer's browser: a rebound host name, a cross-site change, secrets.
@Suite("Emulator: the control API refuses what a browser page could send")
struct ControlAPIBrowserTests {
    @Test func rebindingCrossSiteAndSecrets() async throws {
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let port = emulator.httpURL.port ?? 0
        func send(_ method: String, _ path: String, headers: [String: String]) async throws -> (Int, String) {
            var request = URLRequest(url: try #require(URL(string: "\(emulator.httpURL.absoluteString)/\(path)")))
            request.httpMethod = method
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (status, _, body) = try await NoRedirectFetcher.send(request)
            return (status, String(decoding: body, as: UTF8.self))
        }
        // A name that DNS rebinding pointed at 127.0.0.1 is refused, for reads and changes alike.
        #expect(try await send("GET", "_emulator/config", headers: ["Host": "attacker.example:\(port)"]).0 == 403)
        #expect(try await send("POST", "_emulator/refresh-tokens/revoke", headers: ["Host": "attacker.example:\(port)"]).0 == 403)
        // A cross-site change (a form or fetch from another site's page) is refused; the same request from a tool is not.
        #expect(try await send("POST", "_emulator/refresh-tokens/revoke", headers: ["Origin": "https://attacker.example"]).0 == 403)
        #expect(try await send("POST", "_emulator/refresh-tokens/revoke", headers: ["Sec-Fetch-Site": "cross-site"]).0 == 403)
        #expect(try await send("POST", "_emulator/refresh-tokens/revoke", headers: [:]).0 == 200)
        #expect(try await send("POST", "_emulator/refresh-tokens/revoke", headers: ["Host": "localhost:\(port)", "Origin": "http://localhost:\(port)"]).0 == 200)
        // Passwords and client secrets only when asked for.
        let plain = try await send("GET", "_emulator/config", headers: [:])
        #expect(plain.0 == 200 && !plain.1.contains(emulator.password), "\(plain.1.prefix(300))")
        let asked = try await send("GET", "_emulator/config?secrets=true", headers: [:])
        #expect(asked.1.contains(emulator.password))
    }
}
