import Foundation
import MSALTestSupport
import MSALEmulator
import Testing

/// `msal graph` through the built binary: a cross-origin redirect is followed without the bearer token.
@Suite("msal graph and redirects")
struct GraphCommandRedirectTests {
    static func run(_ arguments: [String], home: URL) async throws -> ProcessOutput {
        try await ProcessRunner.run(try BuiltBinary.locate("msal"), arguments, environment: [
            "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ])
    }

    @Test func crossOriginRedirectDropsTheToken() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.lifetimes.deviceCodeInterval = 1
        let emulator = try await IdentityEmulator.start(configuration)
        let download = try await TestHTTPServer.start { _ in .json(["displayName": "from the download host"]) }
        let graph = try await TestHTTPServer.start { request in
            request.path == "/v1.0/me" ? .redirect(302, to: "\(download.baseURL)/content/me") : .json([:], status: 404)
        }
        defer { Task { await emulator.stop(); await graph.stop(); await download.stop() } }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("msal-graph-redirect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let options = ["--authority", "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                       "--client-id", emulator.clientId, "--cache", home.appendingPathComponent("cache.json").path]

        let login = try await Self.run(["login", "--device-code", "--json"] + options, home: home)
        try #require(login.status == 0, "stderr: \(login.stderr)")
        let result = try await Self.run(["graph", "/me", "--graph-endpoint", graph.baseURL] + options, home: home)

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("from the download host"))
        let first = try #require(graph.requests.first)
        #expect(first.header("Authorization")?.hasPrefix("Bearer ") == true)
        let token = String(first.header("Authorization")?.dropFirst("Bearer ".count) ?? "")
        let followed = try #require(download.requests.first)
        #expect(followed.header("Authorization") == nil, "the token reached another origin")
        #expect(!token.isEmpty && !followed.headers.contains { $0.value.contains(token) })
    }
}
