import ArgumentParser
import Foundation
import MSAL

@main
struct MSALBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal-bench",
        abstract: "Figures for MSAL for Swift's token cache and silent acquisition.",
        subcommands: [SilentBenchmark.self, AppTokenBenchmark.self, CacheWriterCommand.self, RefreshRaceBenchmark.self,
                      RefreshWorkerCommand.self, CacheIOCommand.self, AzureCLIBenchmark.self, BrokerBenchmark.self,
                      PoPBenchmark.self])
}

struct SilentBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent",
        abstract: "Times acquireTokenSilent cache hits through the public API, and cache load/save.",
        discussion: """
            Builds a cache of N accounts x M access tokens through the library's own API (interactive sign-in and \
            silent refreshes against an in-process identity provider), or loads FILE (a unified cache another SDK \
            wrote), then times K silent calls that are answered from the cache. Prints one JSON object.

            Example: swift run --traits Tools -c release msal-bench silent --accounts 1000 --tokens-per-account 10 --iterations 100000 --json
            """)

    @Option(help: "Accounts to sign in.") var accounts = 100
    @Option(help: "Access tokens (resources) per account.") var tokensPerAccount = 10
    @Option(help: "Silent calls to time.") var iterations = 100_000
    @Flag(help: "Store targets wider than the requested scopes, as Entra returns them.") var wideTargets = false
    @Option(help: "Load this unified cache file instead of building one.") var cache: String?
    @Option(help: "Write the cache the benchmark ran on to this file (to time another SDK on the same data).")
    var writeCache: String?
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard accounts > 0, tokensPerAccount > 0, iterations > 0 else {
            throw ValidationError("--accounts, --tokens-per-account and --iterations must be positive.")
        }
    }

    func run() async throws {
        let setup: BenchSetup
        let buildStart = DispatchTime.now()
        if let cache {
            setup = try await BenchSetup.load(file: URL(fileURLWithPath: cache))
        } else {
            setup = try await BenchSetup.build(accounts: accounts, tokensPerAccount: tokensPerAccount, wideTargets: wideTargets)
        }
        let buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - buildStart.uptimeNanoseconds) / 1e9
        if let writeCache {
            try setup.cacheData.write(to: URL(fileURLWithPath: writeCache))
        }

        let requestsBefore = setup.provider.requestCount
        var samples = [UInt64]()
        samples.reserveCapacity(iterations)
        var generator = SplitMix64(seed: 42)
        let parameters = setup.targets.map { MSALSilentTokenParameters(scopes: $0.scopes, account: $0.account) }
        // First call per target: the full cache lookup (afterwards repeated requests may take the memoized path).
        var firstCalls = [UInt64]()
        firstCalls.reserveCapacity(parameters.count)
        for parameter in parameters {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await setup.app.acquireTokenSilent(with: parameter)
            firstCalls.append(DispatchTime.now().uptimeNanoseconds - start)
        }
        firstCalls.sort()
        for _ in 0..<iterations {
            let parameter = parameters[Int(generator.next() % UInt64(parameters.count))]
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try await setup.app.acquireTokenSilent(with: parameter)
            let end = DispatchTime.now().uptimeNanoseconds
            if result.accessToken.isEmpty { throw ValidationError("empty token") }
            samples.append(end - start)
        }
        let networkDuringHits = setup.provider.requestCount - requestsBefore
        samples.sort()
        func percentile(_ p: Double) -> Double {
            Double(samples[min(samples.count - 1, Int(Double(samples.count) * p))]) / 1000
        }
        let mean = Double(samples.reduce(0, +)) / Double(samples.count) / 1000
        let io = try CacheIOBenchmark.measure(setup.cacheData)

        let report: [String: Any] = [
            "accounts": setup.accountCount,
            "tokens_per_account": setup.tokensPerAccount,
            "access_tokens": setup.targets.count,
            "wide_targets": wideTargets,
            "iterations": iterations,
            "p50_us": percentile(0.50),
            "p90_us": percentile(0.90),
            "p99_us": percentile(0.99),
            "mean_us": mean,
            "first_call_p50_us": Double(firstCalls[firstCalls.count / 2]) / 1000,
            "first_call_p99_us": Double(firstCalls[min(firstCalls.count - 1, firstCalls.count * 99 / 100)]) / 1000,
            "max_us": Double(samples.last ?? 0) / 1000,
            "network_requests_during_hits": networkDuringHits,
            "cache_bytes": setup.cacheData.count,
            "save_ms": io.saveMilliseconds,
            "load_ms": io.loadMilliseconds,
            "load_read_ms": io.readMilliseconds,
            "load_parse_ms": io.parseMilliseconds,
            "save_serialize_ms": io.serializeMilliseconds,
            "save_write_ms": io.writeMilliseconds,
            "build_s": buildSeconds,
        ]
        if json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for key in report.keys.sorted() { print("\(key): \(report[key]!)") }
        }
        if networkDuringHits != 0 {
            throw ValidationError("cache hits made \(networkDuringHits) network requests")
        }
    }
}

/// A small deterministic generator, so that runs are comparable.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
