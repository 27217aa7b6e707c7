import Foundation
import MSALTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import MSALEmulator

/// `msal --debug`: the redacted HTTP trace on stderr, `token --json` metadata, and network failures in words.
@Suite("msal --debug", .serialized)
struct DebugTraceCommandTests {
    typealias Setup = CommandLineTests.Setup

    /// Trace lines of `stderr` for `method` requests to a path ending in `suffix`, answered `status`.
    static func traceLines(_ stderr: String, _ method: String, suffix: String, status: Int) -> [Substring] {
        stderr.split(separator: "\n").filter { line in
            guard let range = line.range(of: "HTTP \(method) "), let arrow = line.range(of: " -> \(status) (") else { return false }
            return line[range.upperBound..<arrow.lowerBound].hasSuffix(suffix)
        }
    }

    @Test func debugTracesEveryRequestWithoutSecretsAndTokenJSONHasMetadata() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let login = try await setup.msal(["login", "--emulator-auto-approve", "--debug"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let host = setup.emulator.httpURL.absoluteString
        let tokenLines = Self.traceLines(login.stderr, "POST", suffix: "/oauth2/v2.0/token", status: 200)
        #expect(tokenLines.count == 1, "stderr: \(login.stderr)")
        let line = String(tokenLines.first ?? "")
        #expect(line.contains("HTTP POST \(host)/\(EmulatorConfiguration.demoTenantId)/oauth2/v2.0/token -> 200 ("))
        #expect(line.range(of: #"\([0-9]+ ms\) client-request-id=[0-9A-F-]{36}"#, options: .regularExpression) != nil)
        #expect(line.contains("id_token_claims=") && line.contains("(PII masked)"))
        #expect(!Self.traceLines(login.stderr, "GET", suffix: "/.well-known/openid-configuration", status: 200).isEmpty)

        let warm = try await setup.msal(["token", "--json", "--debug"])
        #expect(warm.status == 0, "stderr: \(warm.stderr)")
        let warmMetadata = try #require((try warm.json() as? [String: Any])?["metadata"] as? [String: Any])
        #expect(warmMetadata["token_source"] as? String == "cache")
        #expect(warmMetadata["cache_refresh_reason"] as? String == "not_applicable")
        #expect(warmMetadata["duration_in_http_ms"] as? Int == 0)
        #expect(warmMetadata["duration_in_cache_ms"] is Int)
        #expect(warm.stderr.contains("Cache: hit, access token expires in"))
        #expect(!warm.stderr.contains("HTTP "))

        let forced = try await setup.runner.run(["token", "--json", "--force-refresh"] + setup.options,
                                                environment: ["MSAL_DEBUG": "1"])
        #expect(forced.status == 0, "stderr: \(forced.stderr)")
        let forcedMetadata = try #require((try forced.json() as? [String: Any])?["metadata"] as? [String: Any])
        #expect(forcedMetadata["token_source"] as? String == "identity_provider")
        #expect(forcedMetadata["cache_refresh_reason"] as? String == "force_refresh")
        #expect(!Self.traceLines(forced.stderr, "POST", suffix: "/oauth2/v2.0/token", status: 200).isEmpty,
                "stderr: \(forced.stderr)")
        #expect(forced.stderr.contains("refreshing (force_refresh)"))

        // --verbose alone stays at MSAL's info level: no HTTP trace.
        let verbose = try await setup.msal(["token", "--force-refresh", "--verbose"])
        #expect(verbose.status == 0)
        #expect(!verbose.stderr.contains("HTTP POST"))

        let secrets = try setup.cachedSecrets()
        #expect(!secrets.isEmpty)
        for stderr in [login.stderr, warm.stderr, forced.stderr] {
            for secret in secrets { #expect(!stderr.contains(secret)) }
            #expect(!stderr.contains("eyJ"))
            #expect(!stderr.contains(setup.emulator.username), "the user name is personal data, masked by default")
        }
    }

    @Test func appTokenTraceNeverShowsTheClientSecret() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let output = try await setup.runner.run([
            "token", "--json", "--debug", "--client-secret", "daemon-secret",
            "--client-id", EmulatorConfiguration.daemonClientId,
            "--authority", "\(setup.emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
            "--cache", setup.cache.path, "--scopes", "https://graph.microsoft.com/.default",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let object = try #require(try output.json() as? [String: Any])
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["token_source"] as? String == "identity_provider")
        #expect(metadata["cache_refresh_reason"] as? String == "no_cached_access_token")
        #expect(!Self.traceLines(output.stderr, "POST", suffix: "/oauth2/v2.0/token", status: 200).isEmpty)
        #expect(!output.stderr.contains("daemon-secret"))
        #expect(!output.stderr.contains(object["access_token"] as? String ?? "<none>"))
    }

    @Test func networkFailuresAreNamedWithAHint() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let tenant = EmulatorConfiguration.demoTenantId
        let untrusted = try await setup.runner.run([
            "token", "--client-secret", "s3cret-value", "--client-id", EmulatorConfiguration.daemonClientId,
            "--authority", "\(setup.emulator.httpsURL.absoluteString)/\(tenant)", "--cache", setup.cache.path,
        ])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("[network: tls_trust_failure]"), "stderr: \(untrusted.stderr)")
        #expect(untrusted.stderr.contains("--ca-file"))

        let (socket, port) = try #require(TestSockets.boundNotListening())
        defer { close(socket) }
        let refused = try await setup.runner.run([
            "token", "--client-secret", "s3cret-value", "--client-id", EmulatorConfiguration.daemonClientId,
            "--authority", "http://127.0.0.1:\(port)/\(tenant)", "--cache", setup.cache.path, "--debug",
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("[network: connection_refused]"), "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("failed after"), "the trace names the failed request")
        #expect(!refused.stderr.contains("s3cret-value"))
    }

}
