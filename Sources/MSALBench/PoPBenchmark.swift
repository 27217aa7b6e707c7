import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALTesting

/// `msal-bench pop`: what proof of possession costs: a silent PoP call answered from the cache (the bound token
/// found by its key, a request signed with RSA-2048) against a bearer cache hit, and the signing alone.
struct PoPBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pop",
        abstract: "Times silent proof-of-possession calls (cache hit + signing) against bearer cache hits.",
        discussion: """
            Starts the emulator, signs in once with a bearer and once with a PoP token, then times K silent PoP calls \
            (each finds the bound token by its key and signs a new request) and K silent bearer cache hits. Prints \
            one JSON object with --json.

            Example: swift run --traits Tools -c release msal-bench pop --iterations 2000
            """)

    @Option(help: "Calls to time of each kind.") var iterations = 1000
    @Flag(help: "Print one JSON object.") var json = false

    func run() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "http://localhost",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let app = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        let signedIn = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        let pop = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        pop.authenticationScheme = MSALAuthenticationSchemePop(
            httpMethod: .GET, requestUrl: emulator.httpURL.appendingPathComponent("v1.0/me"), nonce: nil, additionalParameters: nil)
        _ = try await app.acquireTokenSilent(with: pop)   // binds once: every timed call is a cache hit
        let bearer = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        _ = try await app.acquireTokenSilent(with: bearer)

        let popHit = try await BrokerBenchmark.time(iterations) {
            let result = try await app.acquireTokenSilent(with: pop)
            guard result.metadata.tokenSource == .cache, result.authenticationScheme == "Pop" else {
                throw ValidationError("A PoP call missed the cache (\(result.metadata.tokenSource), \(result.authenticationScheme), \(result.metadata.cacheRefreshReason)).")
            }
        }
        let bearerHit = try await BrokerBenchmark.time(iterations) {
            let result = try await app.acquireTokenSilent(with: bearer)
            guard result.metadata.tokenSource == .cache else { throw ValidationError("A bearer call missed the cache.") }
        }
        let key = try MSALPoPKeyPair()
        let signing = try await BrokerBenchmark.time(iterations) {
            _ = try MSALPoPKeyPair.benchmarkSignature(key)
        }
        await emulator.stop()
        let figures: [String: Any] = [
            "iterations": iterations, "silent_pop_hit_p50_ms": popHit.p50, "silent_pop_hit_p90_ms": popHit.p90,
            "silent_bearer_hit_p50_ms": bearerHit.p50, "silent_bearer_hit_p90_ms": bearerHit.p90,
            "rsa2048_signature_p50_ms": signing.p50,
        ]
        if json {
            let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "silent PoP call (cache hit, signed): p50 %.3f ms, p90 %.3f ms", popHit.p50, popHit.p90))
            print(String(format: "silent bearer cache hit:             p50 %.4f ms, p90 %.4f ms", bearerHit.p50, bearerHit.p90))
            print(String(format: "RSA-2048 signature alone:            p50 %.3f ms", signing.p50))
        }
    }
}
