import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

/// A middle-tier web API that calls Microsoft Graph on behalf of its caller. Without --client-id (or with --emulator)
/// it runs the whole
/// scenario against an identity platform emulator started in this process: the API on 127.0.0.1, a client that
/// signs the demo user in for the API's scope and calls it.
@main
struct OnBehalfOfCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "on-behalf-of",
        abstract: "A web API that validates its caller's token and calls Microsoft Graph on the caller's behalf.",
        discussion: """
        Without --client-id: starts the emulator and the API, signs the demo user in to the emulator's public \
        client for api://<middle-tier>/access_as_user (auto-approved), calls GET /api/me three times (no token, \
        the user's token twice: the second on-behalf-of exchange comes from the cache) and prints the answers.

        With a real app registration for the API (--client-id, --tenant, and --client-secret-env naming the \
        environment variable that holds the API's client secret, so that the secret is not on the command line; the \
        API exposes the scope access_as_user and has the delegated Graph permission User.Read): serves GET /api/me \
        on --port until stopped.

        The mode comes from the command line only: no environment variable is read except the one \
        --client-secret-env names.

        Examples:
          on-behalf-of
          API_SECRET=... on-behalf-of --client-id <api id> --tenant contoso.onmicrosoft.com \\
            --client-secret-env API_SECRET --port 8080
        """
    )

    @Flag(help: "Run the whole scenario against the embedded identity platform emulator (the default without --client-id).")
    var emulator = false

    @Option(help: ArgumentHelp("The API's application (client) id; without it, the embedded emulator is used.",
                               valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("The tenant id or domain.", valueName: "tenant"))
    var tenant: String?

    @Option(help: ArgumentHelp("The environment variable that holds the API's client secret (with --client-id).",
                               valueName: "name"))
    var clientSecretEnv: String?

    @Option(help: ArgumentHelp("The port to serve on (127.0.0.1).", valueName: "port"))
    var port = 8080

    func validate() throws {
        if emulator && clientId != nil {
            throw ValidationError("--emulator and --client-id choose different modes; give one of them.")
        }
        if clientId == nil && (tenant != nil || clientSecretEnv != nil) {
            throw ValidationError("--tenant and --client-secret-env need --client-id.")
        }
        if clientId != nil && (tenant == nil || clientSecretEnv == nil) {
            throw ValidationError("--client-id needs --tenant and --client-secret-env.")
        }
        if let clientSecretEnv, ProcessInfo.processInfo.environment[clientSecretEnv]?.isEmpty != false {
            throw ValidationError("The environment variable \(clientSecretEnv) (--client-secret-env) is not set.")
        }
    }

    func run() async throws {
        if let clientId, let tenant, let clientSecretEnv,
           let secret = ProcessInfo.processInfo.environment[clientSecretEnv] {
            let api = try Self.makeAPI(clientId: clientId, secret: secret,
                                       authority: "https://login.microsoftonline.com/\(tenant)",
                                       graphEndpoint: "https://graph.microsoft.com/")
            let server = Application(router: api.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)))
            print("Serving GET http://127.0.0.1:\(port)/api/me")
            try await server.runService()
            return
        }
        try await Self.runOnEmulator(log: { print($0) })
    }

    static func makeAPI(clientId: String, secret: String, authority: String, graphEndpoint: String) throws -> MiddleTierAPI {
        let config = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: .secret(secret),
                                                             authority: try MSALAuthority(url: URL(string: authority)!))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return MiddleTierAPI(app: try MSALConfidentialClientApplication(configuration: config),
                             audiences: [clientId, "api://\(clientId)"], graphEndpoint: graphEndpoint)
    }

    /// The whole scenario on the emulator: the API in this process, a signed-in client calling it.
    static func runOnEmulator(log: @escaping @Sendable (String) -> Void) async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let base = emulator.httpURL.absoluteString
        let middleTier = EmulatorConfiguration.middleTierClientId
        let api = try makeAPI(clientId: middleTier, secret: "middle-tier-secret",
                              authority: "\(base)/\(emulator.tenant)", graphEndpoint: base + "/")
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var quiet = Logger(label: "on-behalf-of")
        quiet.logLevel = .critical   // the server's start and shutdown lines would mix with the scenario's output
        let server = Application(router: api.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                 onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                                 logger: quiet)
        let serving = Task { try await server.runService() }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ExitCode.failure }
        log("Started the emulator at \(base) and the middle-tier API at http://127.0.0.1:\(port)")

        let clientConfig = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                             authority: try MSALAuthority(url: URL(string: "\(base)/\(emulator.tenant)")!))
        clientConfig.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let client = try MSALPublicClientApplication(configuration: clientConfig)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        let user = try await client.acquireToken(with: MSALInteractiveTokenParameters(
            scopes: ["api://\(middleTier)/access_as_user"], webviewParameters: webview))
        log("Signed in as \(user.account.username ?? "?") for api://\(middleTier)/access_as_user")

        let url = URL(string: "http://127.0.0.1:\(port)/api/me")!
        let anonymous = try await GraphRequest.get(url, accessToken: "")
        log("GET /api/me without a valid token: HTTP \(anonymous.statusCode)")
        for attempt in 1...2 {
            let answer = try await GraphRequest.get(url, accessToken: user.accessToken)
            log("GET /api/me (\(attempt)): HTTP \(answer.statusCode)\n\(answer.prettyBody)")
            guard answer.statusCode == 200 else { throw ExitCode.failure }
        }
        serving.cancel()
        _ = await serving.result
        await emulator.stop()
        log("Done.")
    }
}
