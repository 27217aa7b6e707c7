import Foundation
import Testing
import MSALEmulator
import MSALTestSupport

/// The `msal` binary against a hostile identity provider on 127.0.0.1: what the server sends never reaches the
/// terminal as control characters, numbers it sends never crash the tool, and a user's refusal exits with the
/// documented "sign-in not completed" code.
@Suite("msal against a hostile identity provider", .serialized)
struct HostileServerTests {
    static let tenant = "5a3f1d2e-8b7c-4c1d-9e0f-2a3b4c5d6e7f"
    static let clientId = "0e6a8d7c-1b2a-4f3e-8d9c-7b6a5f4e3d2c"

    /// A device-code identity provider: discovery and metadata like Entra, then `deviceCode` for the device
    /// authorization request and `token` for every token request.
    static func provider(deviceCode: HostileServer.Response, token: HostileServer.Response) throws -> HostileServer {
        try provider(deviceCode: deviceCode, answeringToken: { token })
    }

    /// The same provider, answering each token request with what `answeringToken` returns when it returns (on the
    /// request's connection thread).
    static func provider(deviceCode: HostileServer.Response,
                         answeringToken: @escaping @Sendable () -> HostileServer.Response) throws -> HostileServer {
        let origin = LockedOrigin()
        let server = try HostileServer { request in
            let base = origin.value + "/" + tenant
            let host = String(origin.value.dropFirst("http://".count))
            switch request.path {
            case "/common/discovery/instance":
                return .json(200, #"{"tenant_discovery_endpoint":"\#(base)/v2.0/.well-known/openid-configuration","api-version":"1.1","#
                    + #""metadata":[{"preferred_network":"\#(host)","preferred_cache":"\#(host)","aliases":["\#(host)"]}]}"#)
            case "/\(tenant)/v2.0/.well-known/openid-configuration":
                return .json(200, #"{"authorization_endpoint":"\#(base)/oauth2/v2.0/authorize","token_endpoint":"\#(base)/oauth2/v2.0/token","#
                    + #""device_authorization_endpoint":"\#(base)/oauth2/v2.0/devicecode","issuer":"\#(base)/v2.0"}"#)
            case "/\(tenant)/oauth2/v2.0/devicecode":
                return deviceCode
            case "/\(tenant)/oauth2/v2.0/token":
                return answeringToken()
            default:
                return .json(404, #"{"error":"not_found"}"#)
            }
        }
        origin.set(server.origin)
        return server
    }

    static func deviceCodeBody(message: String = "Enter ABCD-EFGH", expiresIn: String = "900", interval: String = "1") -> HostileServer.Response {
        .json(200, #"{"device_code":"DC-SECRET-VALUE","user_code":"ABCD-EFGH","verification_uri":"https://example.com/devicelogin","#
            + #""expires_in":\#(expiresIn),"interval":\#(interval),"message":"\#(message)"}"#)
    }

    static func options(_ server: HostileServer, _ runner: CommandRunner) -> [String] {
        ["--authority", "\(server.origin)/\(tenant)", "--client-id", clientId,
         "--cache", runner.home.appendingPathComponent("cache.json").path]
    }

    /// Characters a terminal acts on: C0 controls except newline and tab, DEL, C1 controls.
    static func controls(in text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || (0x7F...0x9F).contains($0) }
    }

    // Title change (OSC 0 ... BEL), screen clear (CSI 2J), the one-byte C1 CSI, a carriage return to overwrite the
    // line with a fake prompt; as JSON escapes inside the server's strings.
    static let hostileText = #"\u001b]0;owned\u0007\u001b[2J\u009b31mred\r> password: "#

    @Test func escapeSequencesFromTheServerNeverReachTheTerminal() async throws {
        let server = try Self.provider(
            deviceCode: Self.deviceCodeBody(message: "Enter ABCD-EFGH " + Self.hostileText),
            token: .json(400, #"{"error":"invalid_client","error_description":"AADSTS7000215: \#(Self.hostileText)bad client","#
                + #""error_codes":[7000215]}"#))
        defer { server.stop() }
        let runner = try CommandRunner()
        let options = Self.options(server, runner)

        let plain = try await runner.run(["login", "--device-code"] + options)
        #expect(plain.status == 1, "stderr: \(plain.stderr)")
        #expect(Self.controls(in: plain.stderr).isEmpty, "control characters on stderr: \(Self.controls(in: plain.stderr))")
        #expect(Self.controls(in: plain.stdout).isEmpty)
        // The text is still there, with the controls made visible.
        #expect(plain.stderr.contains(#"Enter ABCD-EFGH \u001b]0;owned\u0007\u001b[2J\u009b31mred\u000d> password: "#))
        #expect(plain.stderr.contains(#"msal: error: The server returned invalid_client: AADSTS7000215: \u001b]0;owned"#))
        #expect(!plain.stderr.contains("DC-SECRET-VALUE"))

        // JSON output escapes the same characters and still decodes to the server's text.
        let json = try await runner.run(["login", "--device-code", "--json"] + options)
        #expect(json.status == 1)
        #expect(Self.controls(in: json.stderr).isEmpty, "control characters on stderr: \(Self.controls(in: json.stderr))")
        let line = try #require(json.stderr.split(separator: "\n").first)
        let code = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(code["message"] as? String == "Enter ABCD-EFGH \u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31mred\r> password: ")

        // Diagnostics go through the same filter.
        let verbose = try await runner.run(["login", "--device-code", "--verbose"] + options)
        #expect(verbose.status == 1)
        #expect(verbose.stderr.contains("Device code issued"))
        #expect(Self.controls(in: verbose.stderr).isEmpty, "control characters on stderr: \(Self.controls(in: verbose.stderr))")
    }

    @Test(arguments: [(#""inf""#, "1"), ("900", #""inf""#), (#""nan""#, "1"), ("-1e300", "1"), ("900", "-5")])
    func unusableDeviceCodeNumbersEndWithAnError(expiresIn: String, interval: String) async throws {
        let server = try Self.provider(deviceCode: Self.deviceCodeBody(expiresIn: expiresIn, interval: interval),
                                       token: .json(400, #"{"error":"authorization_declined"}"#))
        defer { server.stop() }
        let runner = try CommandRunner()
        let output = try await runner.run(["login", "--device-code"] + Self.options(server, runner))
        #expect(output.status == 1, "stderr: \(output.stderr)")
        #expect(output.stderr.hasPrefix("msal: error: The "), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("of the device authorization response"))
    }

    @Test func hugeDeviceCodeNumbersAreClampedAndADeclineExitsWithFour() async throws {
        let server = try Self.provider(deviceCode: Self.deviceCodeBody(expiresIn: "1e300", interval: "1"),
                                       token: .json(400, #"{"error":"authorization_declined","error_description":"AADSTS70000: declined"}"#))
        defer { server.stop() }
        let runner = try CommandRunner()
        let output = try await runner.run(["login", "--device-code", "--json", "--verbose"] + Self.options(server, runner))
        #expect(output.status == 4, "stderr: \(output.stderr)")
        let line = try #require(output.stderr.split(separator: "\n").first { $0.hasPrefix("{") })
        let code = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(code["expires_in"] as? Int == 315_360_000)
    }

    @Test func anOutOfRangeExpiryInTheCacheIsPrintedWithoutACrash() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let cache = runner.home.appendingPathComponent("cache.json")
        let options = ["--authority", "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                       "--client-id", emulator.clientId, "--cache", cache.path]
        let login = try await runner.run(["login", "--emulator-auto-approve"] + options)
        #expect(login.status == 0, "stderr: \(login.stderr)")

        // Another program sharing the cache file wrote an expiry at the end of Int64's range.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: cache)) as? [String: Any])
        var accessTokens = try #require(document["AccessToken"] as? [String: [String: Any]])
        for key in accessTokens.keys {
            accessTokens[key]?["expires_on"] = "9223372036854775807"
            accessTokens[key]?["extended_expires_on"] = "9223372036854775807"
        }
        document["AccessToken"] = accessTokens
        try JSONSerialization.data(withJSONObject: document).write(to: cache)

        let token = try await runner.run(["token", "--json"] + options)
        #expect(token.status == 0, "stderr: \(token.stderr)")
        let object = try #require(try token.json() as? [String: Any])
        #expect(object["expires_on"] as? Int == Int.max)
        #expect((object["expires_in"] as? Int ?? 0) > 0)
    }

    /// A browser for `BROWSER`: opens the authorization URL, presses Cancel on the emulator's first page, and
    /// delivers the error redirect to the application's loopback listener (stdlib only).
    static let decliningBrowser = #"""
    import html, re, sys, urllib.error, urllib.parse, urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            return None

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect())

    def fetch(url, fields=None):
        data = urllib.parse.urlencode(fields).encode() if fields is not None else None
        try:
            response = opener.open(urllib.request.Request(url, data=data), timeout=10)
            return response.status, response.headers, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode("utf-8", "replace")

    url = sys.argv[1]
    status, headers, body = fetch(url)
    for _ in range(8):
        if status in (301, 302, 303, 307):
            url = urllib.parse.urljoin(url, headers["Location"])
            if "state=" in url and ("error=" in url or "code=" in url):
                fetch(url)
                break
            status, headers, body = fetch(url)
            continue
        tag = re.search(r"<form\b[^>]*>", body)
        if not tag:
            break
        action = html.unescape(re.search(r'action="([^"]*)"', tag.group(0)).group(1))
        ident = re.search(r'(?:id|name)="([^"]*)"', tag.group(0))
        ident = ident.group(1) if ident else ""
        fields = [(html.unescape(n), html.unescape(v))
                  for n, v in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)"', body)]
        target = urllib.parse.urljoin(url, action)
        if ident == "hiddenform":
            fetch(target, fields)
            break
        fields.append(("account", "cancel") if ident == "picker-form" else ("action", "cancel"))
        url = target
        status, headers, body = fetch(target, fields)
    """#

    @Test func declinedSignInExitsWithTheSignInNotCompletedCode() async throws {
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let script = runner.home.appendingPathComponent("decline.py")
        try Self.decliningBrowser.write(to: script, atomically: true, encoding: .utf8)
        let options = ["--authority", "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                       "--client-id", emulator.clientId, "--cache", runner.home.appendingPathComponent("cache.json").path]
        let login = try await runner.run(["login"] + options, environment: ["BROWSER": "python3 \(script.path)"])
        #expect(login.status == 4, "stdout: \(login.stdout) stderr: \(login.stderr)")
        #expect(login.stderr.contains("access_denied"), "stderr: \(login.stderr)")
        #expect(login.stdout.isEmpty)
    }
}

/// The server's origin, known only once it listens.
final class LockedOrigin: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    var value: String { lock.withLock { text } }
    func set(_ value: String) { lock.withLock { text = value } }
}
