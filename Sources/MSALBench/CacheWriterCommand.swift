import ArgumentParser
import Foundation
import MSAL

/// Signs users in one after another into a shared cache file, through the public API: a writer process for the
/// tests that share one cache file between several MSAL for Swift and MSAL for Python processes.
struct CacheWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache-writer",
        abstract: "Signs in users FIRST..<FIRST+COUNT, saving each to the cache FILE (a peer for cache-sharing tests).",
        discussion: """
            Each sign-in runs against an in-process identity provider and is saved to FILE under the cache file's \
            cross-process lock. Users are user<N>@bench.example. Prints one JSON object: the users signed in and \
            the longest single sign-in in seconds.
            """)

    @Option(help: "The cache file.") var file: String
    @Option(help: "The first user number.") var first = 0
    @Option(help: "How many users to sign in.") var count = 1
    @Option(help: "Seconds to wait for the cache lock before failing.") var lockTimeout: Double = 10

    func validate() throws {
        guard first >= 0, count > 0 else { throw ValidationError("--first must not be negative and --count must be positive.") }
    }

    func run() async throws {
        let provider = BenchIdentityProvider(wideTargets: false)
        let config = MSALPublicClientApplicationConfig(
            clientId: BenchSetup.clientId, redirectUri: "http://localhost",
            authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/organizations")!))
        config.httpClient = provider
        config.cacheConfig.storage = MSALFileTokenCacheStorage(fileURL: URL(fileURLWithPath: file), lockTimeout: lockTimeout)
        let app = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = provider
        var longest: TimeInterval = 0
        for user in first..<(first + count) {
            let parameters = MSALInteractiveTokenParameters(scopes: provider.scopes(resource: 0), webviewParameters: webview)
            parameters.loginHint = provider.username(user)
            let start = Date()
            _ = try await app.acquireToken(with: parameters)
            longest = max(longest, Date().timeIntervalSince(start))
        }
        print("{\"signed_in\": \(count), \"longest_seconds\": \(longest)}")
    }
}
