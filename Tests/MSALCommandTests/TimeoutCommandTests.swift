import Foundation
import MSALTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `msal` binary against an identity provider that accepts connections and never answers: it gives up after
/// its per-request timeout (30 s by default, `--timeout` / `MSAL_TIMEOUT`) with an error naming the host and the
/// timeout, instead of waiting minutes.
@Suite("msal gives up on a host that never answers", .serialized)
struct TimeoutCommandTests {
    /// A listening socket on 127.0.0.1 that never accepts: the kernel completes each connection, nobody answers.
    final class BlackHole: @unchecked Sendable {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            (descriptor, port) = try HostileServer.listeningSocket(backlog: 64)
        }

        deinit { close(descriptor) }
    }

    static let tenant = "5a3f1d2e-8b7c-4c1d-9e0f-2a3b4c5d6e7f"

    private func options(_ hole: BlackHole, _ runner: CommandRunner) -> [String] {
        ["--authority", "http://127.0.0.1:\(hole.port)/\(Self.tenant)", "--client-id", "0e6a8d7c-1b2a-4f3e-8d9c-7b6a5f4e3d2c",
         "--cache", runner.home.appendingPathComponent("cache.json").path]
    }

    /// Runs `msal` and returns its output and how long it took.
    private func timed(_ runner: CommandRunner, _ arguments: [String],
                       environment: [String: String] = [:]) async throws -> (ProcessOutput, Double) {
        let started = ContinuousClock.now
        let output = try await runner.run(arguments, environment: environment)
        let elapsed = ContinuousClock.now - started
        return (output, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test func deviceCodeLoginGivesUpAfterTheTimeoutAndNamesTheHost() async throws {
        let hole = try BlackHole()
        let runner = try CommandRunner()
        let (run, elapsed) = try await timed(runner, ["login", "--device-code", "--timeout", "2"] + options(hole, runner))
        #expect(run.status == 1)
        #expect(run.stderr.contains("127.0.0.1"), "\(run.stderr)")
        #expect(run.stderr.contains("2 s") && run.stderr.contains("--timeout"), "\(run.stderr)")
        // The request waits 2 s, and is not sent again once its time is spent; the bound only catches a tool that keeps
        // waiting.
        #expect(elapsed < 30, "gave up after \(elapsed) s")
        print("msal login --device-code --timeout 2 on a black-holed host gave up after \(String(format: "%.1f", elapsed)) s")
    }

    @Test func theTimeoutBoundsATokenRequestRetriesIncluded() async throws {
        // Discovery and metadata answer; the token endpoint accepts each request and answers only once the test is
        // over (a bounded wait on the test's signal, not a sleep).
        let tokenRequests = LockedCount()
        let testOver = DispatchSemaphore(value: 0)
        let server = try HostileServerTests.provider(deviceCode: .json(404, #"{"error":"not_found"}"#)) {
            tokenRequests.add()
            _ = testOver.wait(timeout: .now() + 60)
            return .json(500, #"{"error":"temporarily_unavailable"}"#)
        }
        defer {
            for _ in 0..<4 { testOver.signal() }
            server.stop()
        }
        let runner = try CommandRunner()
        let (run, elapsed) = try await timed(runner, ["token", "--client-secret", "not-a-real-secret", "--timeout", "2",
                                                      "--scopes", "https://graph.microsoft.com/.default",
                                                      "--authority", "\(server.origin)/\(Self.tenant)",
                                                      "--client-id", "0e6a8d7c-1b2a-4f3e-8d9c-7b6a5f4e3d2c",
                                                      "--cache", runner.home.appendingPathComponent("cache.json").path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("2 s"), "\(run.stderr)")
        // One token request: the one that used up the 2 s is not sent again.
        #expect(tokenRequests.value == 1)
        #expect(elapsed < 20, "gave up after \(elapsed) s")
    }

    @Test func appTokenAndMSALTimeoutFromTheEnvironment() async throws {
        let hole = try BlackHole()
        let runner = try CommandRunner()
        let (run, elapsed) = try await timed(runner, ["token", "--client-secret", "not-a-real-secret",
                                                      "--scopes", "https://graph.microsoft.com/.default"] + options(hole, runner),
                                             environment: ["MSAL_TIMEOUT": "2"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("127.0.0.1") && run.stderr.contains("2 s"), "\(run.stderr)")
        #expect(!run.stderr.contains("not-a-real-secret"))
        #expect(elapsed < 30, "gave up after \(elapsed) s")
    }

    @Test func aTimeoutThatIsNotANumberOfSecondsIsAUsageError() async throws {
        let runner = try CommandRunner()
        for bad in ["0", "-3", "nan", "inf", "soon", "100000"] {
            let run = try await runner.run(["token", "--timeout", bad])
            #expect(run.status == 64, "--timeout \(bad): \(run.stderr)")
            // A negative number is a value out of range, not a missing one.
            #expect(run.stderr.contains("from 1 to 86400"), "--timeout \(bad): \(run.stderr)")
        }
        let help = try await runner.run(["--help"])
        #expect(help.stdout.contains("MSAL_TIMEOUT") && help.stdout.contains("default 30"))
    }
}

/// A count shared with a server's connection threads.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
