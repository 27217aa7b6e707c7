import Foundation
import Testing
import MSAL
import MSALEmulator
@testable import MSALCommand
import MSALTestSupport

/// `msal graph` request options, paging and continuous access evaluation, through the built binary.
@Suite("msal graph", .serialized)
struct GraphCommandTests {
    typealias Setup = CommandLineTests.Setup

    /// A control request to the emulator (`/_emulator/...`), with a form body.
    func control(_ setup: Setup, _ method: String, _ path: String, form: [String: String] = [:]) async throws -> [String: Any] {
        let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        let request = MSALHTTPRequest(method: method, url: setup.emulator.httpURL.appendingPathComponent("_emulator/" + path),
                                      headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8),
                                      timeout: 10)
        let response = try await MSALDefaultHTTPClient.shared.send(request)
        return (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
    }

    /// Runs the binary with `input` on stdin; returns its stdout.
    func runWithStdin(_ setup: Setup, _ arguments: [String], input: String) async throws -> String {
        try await setup.runner.run(arguments, stdin: Data(input.utf8)).stdout
    }

    func signIn(_ setup: Setup, scopes: [String] = ["User.Read"]) async throws {
        let login = try await setup.msal(["login", "--device-code", "--scopes"] + scopes)
        #expect(login.status == 0, "stderr: \(login.stderr)")
    }

    @Test func methodBodyHeadersAndPaging() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        try await signIn(setup, scopes: ["User.Read", "User.ReadBasic.All"])

        let created = try await setup.msal(["graph", "/me/todo/lists", "--body", #"{"displayName":"Errands"}"#])
        #expect(created.status == 0, "stderr: \(created.stderr)")
        #expect((try created.json() as? [String: Any])?["displayName"] as? String == "Errands")

        let bodyFile = setup.runner.home.appendingPathComponent("list.json")
        try Data(#"{"displayName":"From a file"}"#.utf8).write(to: bodyFile)
        let fromFile = try await setup.msal(["graph", "-X", "post", "/me/todo/lists", "--body-file", bodyFile.path])
        #expect((try fromFile.json() as? [String: Any])?["displayName"] as? String == "From a file", "stderr: \(fromFile.stderr)")

        let fromStdin = try await runWithStdin(setup, ["graph", "/me/todo/lists", "--body-file", "-"] + setup.options,
                                         input: #"{"displayName":"From stdin"}"#)
        #expect(fromStdin.contains("From stdin"), "\(fromStdin)")

        let wrongMethod = try await setup.msal(["graph", "-X", "DELETE", "/me/todo/lists"])
        #expect(wrongMethod.status == 1)

        let uncounted = try await setup.msal(["graph", "/users?$count=true", "--scopes", "User.ReadBasic.All"])
        #expect(uncounted.status == 1)
        let counted = try await setup.msal(["graph", "/users?$count=true", "-H", "ConsistencyLevel: eventual",
                                            "--scopes", "User.ReadBasic.All"])
        #expect(counted.status == 0, "stderr: \(counted.stderr)")
        let count = try #require((try counted.json() as? [String: Any])?["@odata.count"] as? Int)
        #expect(count >= 2)

        let paged = try await setup.msal(["graph", "/users?$top=1", "--paginate", "--scopes", "User.ReadBasic.All"])
        #expect(paged.status == 0, "stderr: \(paged.stderr)")
        let document = try #require(try paged.json() as? [String: Any])
        #expect((document["value"] as? [Any])?.count == count)
        #expect(document["@odata.nextLink"] == nil)

        let onePage = try await setup.msal(["graph", "/users?$top=1", "--scopes", "User.ReadBasic.All"])
        #expect((try onePage.json() as? [String: Any])?["@odata.nextLink"] is String)
    }

    @Test("Usage errors exit with 64", arguments: [
        ["-H", "NoColon"], ["-H", "Authorization: Bearer stolen"], ["-H", "Bad Name: x"], ["--body", "{}", "--body-file", "x"],
        ["-X", "GE T"], ["--paginate", "-X", "POST"],
    ])
    func usageErrors(_ arguments: [String]) async throws {
        let runner = try CommandRunner()
        let result = try await runner.run(["graph", "/me"] + arguments + ["--client-id", "00000000-0000-0000-0000-000000000001"])
        #expect(result.status == 64, "stderr: \(result.stderr)")
    }

    @Test func paginateRefusesANextLinkToAnotherOrigin() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        try await signIn(setup)
        let elsewhere = try HostileServer { _ in .json(200, #"{"value":[]}"#) }
        defer { elsewhere.stop() }
        let requests = RequestLog()
        let graph = try HostileServer { request in
            requests.append(request.target)
            return .json(200, #"{"value":[{"id":"1"}],"@odata.nextLink":"\#(elsewhere.origin)/v1.0/users?$skiptoken=1"}"#)
        }
        defer { graph.stop() }
        let result = try await setup.runner.run(["graph", "/users", "--paginate"] + setup.options + ["--graph-endpoint", graph.origin])
        #expect(result.status == 1)
        #expect(result.stderr.contains("another origin"), "stderr: \(result.stderr)")
        #expect(requests.count == 1)
    }

    @Test func claimsChallengeAfterRevocationIsAnsweredOnce() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        try await signIn(setup)
        let before = try await setup.msal(["graph", "/me"])
        #expect(before.status == 0, "stderr: \(before.stderr)")

        _ = try await control(setup, "POST", "revoke", form: ["user": setup.emulator.username])
        _ = try await control(setup, "DELETE", "stats")
        let after = try await setup.msal(["graph", "/me"])
        #expect(after.status == 0, "stderr: \(after.stderr)")
        #expect((try after.json() as? [String: Any])?["userPrincipalName"] as? String == setup.emulator.username)
        #expect(after.stderr.contains("continuous access evaluation"))
        let stats = try await control(setup, "GET", "stats")
        #expect(stats["claims_challenge_answers"] as? Int == 1)
        #expect((stats["token_requests"] as? [String: Any])?["refresh_token"] as? Int == 1)

        // The fresh token is cached: the next call needs no token request.
        let again = try await setup.msal(["graph", "/me"])
        #expect(again.status == 0)
        #expect((try await control(setup, "GET", "stats")["token_requests"] as? [String: Any])?["refresh_token"] as? Int == 1)

        // With the refresh token revoked too, the answer is to sign in again, with the exact command.
        _ = try await control(setup, "POST", "revoke", form: ["user": setup.emulator.username, "refresh_tokens": "true"])
        let revoked = try await setup.msal(["graph", "/me"])
        #expect(revoked.status == 3)
        #expect(revoked.stderr.contains("msal login --scopes User.Read"), "stderr: \(revoked.stderr)")
        for secret in try setup.cachedSecrets() { #expect(!revoked.stderr.contains(secret) && !after.stderr.contains(secret)) }
    }

    @Test func forbiddenNamesTheLoginCommand() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        try await signIn(setup)
        let denied = try await setup.msal(["graph", "/users"])
        #expect(denied.status == 3)   // the next step is the sign-in the hint names
        #expect(denied.stderr.contains("msal login --scopes User.ReadBasic.All"), "stderr: \(denied.stderr)")
        // A scope the user never consented to: silent fails, and the hint is the sign-in asking for it.
        let unconsented = try await setup.msal(["graph", "/me/messages", "--scopes", "Mail.Read"])
        #expect(unconsented.status == 3)
        #expect(unconsented.stderr.contains("msal login --scopes Mail.Read"), "stderr: \(unconsented.stderr)")
    }
}

/// Request targets seen by a test server.
final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var targets: [String] = []
    func append(_ target: String) { lock.withLock { targets.append(target) } }
    var count: Int { lock.withLock { targets.count } }
}

@Suite("msal client capabilities")
struct ClientCapabilitiesTests {
    @Test func cp1UnlessTheEnvironmentSaysOtherwise() {
        #expect(ToolDefaults.clientCapabilities(environment: [:]) == ["cp1"])
        #expect(ToolDefaults.clientCapabilities(environment: ["MSAL_CLIENT_CAPABILITIES": ""]).isEmpty)
        #expect(ToolDefaults.clientCapabilities(environment: ["MSAL_CLIENT_CAPABILITIES": "cp1,cp2"]) == ["cp1", "cp2"])
    }
}
