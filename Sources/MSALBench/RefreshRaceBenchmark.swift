import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSAL
import MSALEmulator
import MSALTesting

/// Many processes finding one expired token at once: how many refreshes reach the identity provider.
struct RefreshRaceBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh-race",
        abstract: "P processes x T concurrent silent calls on one expired token in a shared cache file.",
        discussion: """
            Starts the identity platform emulator on 127.0.0.1, signs one user in into a fresh cache file, then, each \
            round, expires the cached access token and starts P `msal-bench refresh-worker` processes that each make T \
            concurrent acquireTokenSilent calls. Reports the refresh requests the emulator received per round (the \
            goal: exactly 1), the callers that got the new token, errors, and the wall time of each round. Exits 1 \
            when a round sent more than one refresh or any call failed.

            Example: swift run --traits Tools -c release msal-bench refresh-race --processes 8 --tasks 20 --rounds 3
            """)

    @Option(help: "Processes per round.") var processes = 8
    @Option(help: "Concurrent silent calls per process.") var tasks = 20
    @Option(help: "Rounds (each on a newly expired token).") var rounds = 3
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard (1...64).contains(processes), (1...1000).contains(tasks), (1...100).contains(rounds) else {
            throw ValidationError("--processes must be 1...64, --tasks 1...1000, --rounds 1...100.")
        }
    }

    func run() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-refresh-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("msal_token_cache.json")
        let authority = "\(emulator.httpURL.absoluteString)/\(emulator.tenant)"

        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: URL(string: authority)!))
        config.cacheConfig.storage = MSALFileTokenCacheStorage(fileURL: file)
        let app = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        _ = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))

        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var reports: [[String: Any]] = []
        var failed = false
        for round in 1...rounds {
            try MSALTokenCacheAging.expireAccessTokens(in: MSALFileTokenCacheStorage(fileURL: file))
            try await Self.control(emulator, "DELETE", "stats")
            let started = DispatchTime.now().uptimeNanoseconds
            let workers = try (0..<processes).map { _ in
                try Worker(executable, ["refresh-worker", "--file", file.path, "--authority", authority,
                                        "--client-id", emulator.clientId, "--tasks", "\(tasks)"], in: directory)
            }
            let outputs = workers.map { $0.finish(timeout: 120) }
            let wallMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            let stats = try await Self.control(emulator, "GET", "stats")
            let refreshes = (stats["token_requests"] as? [String: Int])?["refresh_token"] ?? 0
            let tokens = Set(outputs.flatMap { $0["token_fingerprints"] as? [String] ?? [] })
            let succeeded = outputs.map { $0["succeeded"] as? Int ?? 0 }.reduce(0, +)
            let errors = outputs.flatMap { $0["errors"] as? [String] ?? ["worker failed: \($0["failure"] ?? "no output")"] }
            let slowest = outputs.map { $0["slowest_ms"] as? Double ?? 0 }.max() ?? 0
            if refreshes != 1 || !errors.isEmpty || tokens.count != 1 || succeeded != processes * tasks { failed = true }
            reports.append(["round": round, "refresh_requests": refreshes, "callers": processes * tasks,
                            "succeeded": succeeded, "distinct_tokens": tokens.count, "errors": Array(errors.prefix(5)),
                            "wall_ms": (wallMilliseconds * 10).rounded() / 10, "slowest_call_ms": (slowest * 10).rounded() / 10])
        }
        await emulator.stop()
        let summary: [String: Any] = ["processes": processes, "tasks_per_process": tasks, "rounds": reports]
        if json {
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(processes) processes x \(tasks) concurrent silent calls on one expired token:")
            for report in reports {
                print("  round \(report["round"]!): \(report["refresh_requests"]!) refresh request(s), "
                      + "\(report["succeeded"]!)/\(report["callers"]!) callers served, \(report["distinct_tokens"]!) distinct token(s), "
                      + "wall \(report["wall_ms"]!) ms, slowest call \(report["slowest_call_ms"]!) ms, errors \(report["errors"]!)")
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// Calls an emulator control endpoint and returns its JSON answer.
    @discardableResult
    static func control(_ emulator: IdentityEmulator, _ method: String, _ path: String) async throws -> [String: Any] {
        var request = URLRequest(url: emulator.httpURL.appendingPathComponent("_emulator/\(path)"))
        request.httpMethod = method
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// A started worker process whose output goes to a file (no pipe to fill up).
    final class Worker {
        let process = Process()
        let output: URL

        init(_ executable: String, _ arguments: [String], in directory: URL) throws {
            output = directory.appendingPathComponent("worker-\(UUID().uuidString).json")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = FileHandle.standardError
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        func finish(timeout: TimeInterval) -> [String: Any] {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { process.terminate(); process.waitUntilExit(); return ["failure": "timed out"] }
            guard let data = try? Data(contentsOf: output),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return ["failure": "exit \(process.terminationStatus), no JSON"]
            }
            return object
        }
    }
}

/// One process of ``RefreshRaceBenchmark``: T concurrent silent calls for the cache's account.
struct RefreshWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh-worker",
        abstract: "Makes T concurrent acquireTokenSilent calls for the account of a cache file (refresh-race's peer).",
        shouldDisplay: false)

    @Option(help: "The cache file.") var file: String
    @Option(help: "The authority URL.") var authority: String
    @Option(help: "The client id.") var clientId: String
    @Option(help: "Concurrent calls.") var tasks = 20

    func run() async throws {
        let config = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAuthority(url: URL(string: authority)!))
        config.cacheConfig.storage = MSALFileTokenCacheStorage(fileURL: URL(fileURLWithPath: file))
        let app = try MSALPublicClientApplication(configuration: config)
        guard let account = try app.allAccounts().first else { throw ValidationError("No account in \(file).") }
        let outcomes = await withTaskGroup(of: (String?, String?, Double).self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    let start = DispatchTime.now().uptimeNanoseconds
                    do {
                        let result = try await app.acquireTokenSilent(
                            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
                        return (Self.fingerprint(result.accessToken), nil, Self.milliseconds(since: start))
                    } catch {
                        return (nil, (error as? MSALErrorInfo)?.errorDescription ?? "\(type(of: error))",
                                Self.milliseconds(since: start))
                    }
                }
            }
            var all: [(String?, String?, Double)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let report: [String: Any] = [
            "succeeded": outcomes.filter { $0.0 != nil }.count,
            "token_fingerprints": Array(Set(outcomes.compactMap(\.0))),
            "errors": outcomes.compactMap(\.1),
            "slowest_ms": outcomes.map(\.2).max() ?? 0,
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// A short non-reversible fingerprint of a token (FNV-1a), so that tokens are compared without printing them.
    static func fingerprint(_ token: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return String(hash, radix: 16)
    }

    static func milliseconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
}
