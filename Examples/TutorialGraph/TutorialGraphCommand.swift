import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

/// The Graph tutorial as a console program. Without a client id it runs against the local identity platform
/// emulator, started in-process with its (emulator-only) auto-approve switch; with real ids against Microsoft Entra ID.
@main
struct TutorialGraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tutorial-graph",
        abstract: "Sign in, call Microsoft Graph /me, get a token silently, sign out (MSAL's Graph tutorial).",
        discussion: """
        Without --client-id (or MSAL_CLIENT_ID) the tutorial runs against an identity platform emulator started \
        in this process, with an in-memory token cache; the emulator's auto-approve switch (an emulator-only \
        feature) signs the demo user in with no page. No account or network is needed.

        With a real app registration (a public client with the redirect URI http://localhost) it signs in through \
        the system browser with a loopback redirect and uses MSAL's default token cache file.

        Each option falls back to an environment variable: MSAL_CLIENT_ID, MSAL_AUTHORITY, MSAL_SCOPES, \
        MSAL_GRAPH_ENDPOINT, MSAL_REDIRECT_URI. Tokens are never printed.

        Examples:
          tutorial-graph
          tutorial-graph --client-id <id> --scopes User.Read,Mail.Read
          MSAL_CLIENT_ID=<id> MSAL_AUTHORITY=<authority url> tutorial-graph
        """
    )

    @Option(help: ArgumentHelp("The application (client) id; without it, the embedded emulator is used.",
                               valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("The authority URL (default: https://login.microsoftonline.com/common).",
                               valueName: "url"))
    var authority: String?

    @Option(help: ArgumentHelp("The scopes, comma- or space-separated; repeatable (default: user.read).",
                               valueName: "scopes"))
    var scopes: [String] = []

    @Option(help: ArgumentHelp("The Microsoft Graph endpoint (default: https://graph.microsoft.com/).",
                               valueName: "url"))
    var graphEndpoint: String?

    @Option(help: ArgumentHelp("The redirect URI (default: http://localhost on a loopback port).", valueName: "uri"))
    var redirectUri: String?

    func validate() throws {
        if clientId == nil, ExampleInput.value("MSAL_CLIENT_ID", in: ProcessInfo.processInfo.environment) == nil,
           authority != nil || !scopes.isEmpty || graphEndpoint != nil || redirectUri != nil {
            throw ValidationError("--authority, --scopes, --graph-endpoint and --redirect-uri need --client-id.")
        }
    }

    /// The tutorial's settings for a real app registration: options first, then the environment, then defaults.
    /// Nil when no client id is given, which means the embedded emulator.
    func realSettings(environment: [String: String]) -> GraphTutorialSettings? {
        guard let clientId = clientId ?? ExampleInput.value("MSAL_CLIENT_ID", in: environment) else { return nil }
        let scopeList = ExampleInput.list(scopes)
            ?? ExampleInput.value("MSAL_SCOPES", in: environment).flatMap { ExampleInput.list([$0]) }
        return GraphTutorialSettings(
            clientId: clientId,
            authority: authority ?? ExampleInput.value("MSAL_AUTHORITY", in: environment)
                ?? "https://login.microsoftonline.com/common",
            redirectUri: redirectUri ?? ExampleInput.value("MSAL_REDIRECT_URI", in: environment),
            scopes: scopeList ?? ["user.read"],
            graphEndpoint: graphEndpoint ?? ExampleInput.value("MSAL_GRAPH_ENDPOINT", in: environment)
                ?? "https://graph.microsoft.com/")
    }

    func run() async throws {
        let log: @Sendable (String) -> Void = { line in print(line) }
        var emulator: IdentityEmulator?
        let settings: GraphTutorialSettings
        if let real = realSettings(environment: ProcessInfo.processInfo.environment) {
            settings = real
        } else {
            var configuration = EmulatorConfiguration.default
            // Emulator-only feature: approve the demo user's sign-in with no page.
            configuration.autoApproveUsername = configuration.defaults.username
            let started = try await IdentityEmulator.start(configuration)
            emulator = started
            log("Started the identity platform emulator at \(started.httpURL.absoluteString) (auto-approving \(started.username))")
            settings = GraphTutorialSettings(
                clientId: started.clientId, authority: "\(started.httpURL.absoluteString)/\(started.tenant)",
                scopes: ["user.read"], graphEndpoint: started.httpURL.absoluteString + "/",
                cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
        }
        let succeeded = await GraphTutorial(settings: settings, log: log).run()
        await emulator?.stop()
        if !succeeded { throw ExitCode.failure }
    }
}
