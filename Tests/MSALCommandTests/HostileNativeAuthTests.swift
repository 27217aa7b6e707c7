import Foundation
import Testing
import MSALTestSupport

/// `msal native sign-up` against an External ID service that never lets a sign-up finish: every loop ends, with an
/// error that says why, after a handful of requests.
@Suite("msal native against a hostile External ID service", .serialized)
struct HostileNativeAuthTests {
    static let tenant = "contoso.onmicrosoft.com"
    static let clientId = "0e6a8d7c-1b2a-4f3e-8d9c-7b6a5f4e3d2c"

    /// Counts the requests to each path.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func add(_ path: String) { lock.withLock { counts[path, default: 0] += 1 } }
        func count(_ suffix: String) -> Int { lock.withLock { counts.filter { $0.key.hasSuffix(suffix) }.values.reduce(0, +) } }
    }

    /// A sign-up service: a code is sent, then every `continue` answers `attributes_required` with `attributes`.
    static func service(requiring attributes: String, tally: Tally, label: String = "a***@e***.org") throws -> HostileServer {
        try HostileServer { request in
            tally.add(request.path)
            switch request.path {
            case "/\(tenant)/signup/v1.0/start":
                return .json(200, #"{"continuation_token":"t1"}"#)
            case "/\(tenant)/signup/v1.0/challenge":
                return .json(200, #"{"challenge_type":"oob","continuation_token":"t2","code_length":8,"#
                    + #""challenge_target_label":"\#(label)","challenge_channel":"email","binding_method":"prompt"}"#)
            case "/\(tenant)/signup/v1.0/continue":
                return .json(400, #"{"error":"attributes_required","continuation_token":"t3","required_attributes":\#(attributes)}"#)
            default:
                return .json(404, #"{"error":"not_found"}"#)
            }
        }
    }

    func signUp(_ server: HostileServer, stdin: String) async throws -> ProcessOutput {
        let runner = try CommandRunner()
        return try await runner.run(["native", "sign-up", "--username", "ada@example.org",
                                     "--authority", "\(server.origin)/\(Self.tenant)", "--client-id", Self.clientId,
                                     "--cache", runner.home.appendingPathComponent("cache.json").path],
                                    stdin: Data(stdin.utf8), timeout: 30)
    }

    @Test("attributes_required naming no attribute ends the sign-up at once, instead of posting {} forever")
    func noAttributesNamed() async throws {
        let tally = Tally()
        let server = try Self.service(requiring: "[]", tally: tally)
        defer { server.stop() }
        let outcome = try await signUp(server, stdin: "12345678\n")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("asked for attributes without naming any"), "\(outcome.stderr)")
        #expect(tally.count("/continue") == 1)
    }

    @Test("The same attributes asked for again after they were given end the sign-up")
    func sameAttributesAgain() async throws {
        let tally = Tally()
        let server = try Self.service(requiring: #"[{"name":"city","type":"string","required":true}]"#, tally: tally)
        defer { server.stop() }
        let outcome = try await signUp(server, stdin: "12345678\nArlington\nArlington\nArlington\n")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("asked again for the attributes just submitted (city)"), "\(outcome.stderr)")
        #expect(tally.count("/continue") == 2)
    }

    @Test("A line break in the service's masked address or an attribute's name cannot draw a line of msal's own")
    func lineBreaksInServerText() async throws {
        let tally = Tally()
        let fake = #"a***\nmsal: error: session expired\r\nPassword for admin@contoso.com: "#
        let server = try Self.service(requiring: #"[{"name":"city\nPassword for admin@contoso.com","type":"string"}]"#,
                                      tally: tally, label: fake)
        defer { server.stop() }
        let outcome = try await signUp(server, stdin: "12345678\nArlington\n")
        let lines = outcome.stderr.components(separatedBy: "\n")
        #expect(!lines.contains { $0.hasPrefix("msal: error: session expired") }, "\(outcome.stderr)")
        #expect(!lines.contains { $0.hasPrefix("Password for admin") }, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(#"Code sent to a***\u000amsal: error: session expired\u000d\u000aPassword for"#), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(#"city\u000aPassword for admin@contoso.com: "#), "\(outcome.stderr)")
    }
}
