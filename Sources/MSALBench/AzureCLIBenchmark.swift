import ArgumentParser
import Foundation
import MSAL

/// `msal-bench azure-cli`: time to a token through the credential chain's Azure CLI step, in this process.
struct AzureCLIBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "azure-cli",
        abstract: "Times MSALCredentialChain's Azure CLI step: a token from az's cache, and one from running az.",
        discussion: """
            Needs `az` signed in (AZURE_CONFIG_DIR honoured) with a token for --scopes in its cache. Times --iterations \
            calls answered from az's cache file, then --runs calls that run `az account get-access-token`. Prints \
            medians; Benchmarks/azure_cli_credential.py sets this up on the emulator and times azure-identity's \
            AzureCliCredential beside it.
            """)

    @Option(help: "Scopes to ask for.") var scopes: [String] = ["https://graph.microsoft.com/.default"]
    @Option(help: "Calls answered from az's cache.") var iterations = 200
    @Option(help: "Calls that run az.") var runs = 5
    @Flag(help: "Print one JSON object.") var json = false

    func run() async throws {
        let chain = MSALCredentialChain(steps: [.azureCLI])
        var cached: [Double] = []
        for _ in 0..<max(1, iterations) {
            let start = DispatchTime.now().uptimeNanoseconds
            guard try chain.azureCLICachedToken(scopes: scopes) != nil else {
                throw ValidationError("az's cache holds no valid token for \(scopes.joined(separator: " ")).")
            }
            cached.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        var ran: [Double] = []
        for _ in 0..<max(0, runs) {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await chain.azureCLIRunToken(scopes: scopes)
            ran.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        let figures: [String: Any] = ["cache_hit_ms_p50": median(cached), "az_run_ms_p50": median(ran),
                                      "iterations": cached.count, "runs": ran.count]
        if json {
            let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "az cache hit %.3f ms, az run %.0f ms (medians)", median(cached), median(ran)))
        }
    }
}
