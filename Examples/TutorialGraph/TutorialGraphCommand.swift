import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

/// The Graph tutorial as a console program. By default (or with --emulator) it runs against the local identity
/// platform emulator, started in-process with its (emulator-only) auto-approve switch; with --client-id against
/// Microsoft Entra ID. Only the command line chooses: no environment variable is read.
@main
struct TutorialGraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tutorial-graph",
        abstract: "Sign in, call Microsoft Graph /me, get a token silently, sign out (MSAL's Graph tutorial).",
        discussion: """
        Without --client-id (or with --emulator) the tutorial runs against an identity platform emulator started \
        in this process, with an in-memory token cache; the emulator's auto-approve switch (an emulator-only \
        feature) signs the demo user in with no page. No account or network is needed.

        With --client-id (a real app registration: a public client with the redirect URI http://localhost) it \
        signs in through the system browser with a loopback redirect and uses MSAL's default token cache file; the \
        tutorial's last step signs the account out of that cache.

        The mode and every setting come from the command line only; environment variables such as MSAL_CLIENT_ID \
        are not read. Tokens are never printed.

        Examples:
          tutorial-graph
          tutorial-graph --client-id <id> --scopes User.Read,Mail.Read
          tutorial-graph --client-id <id> --authority https://login.microsoftonline.com/organizations
        """
    )

    @Flag(help: "Run against the embedded identity platform emulator (the default without --client-id).")
    var emulator = false

    @Option(help: ArgumentHelp("The application (client) id of a real app registration: sign in with Microsoft Entra ID.",
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
        if emulator, clientId != nil {
            throw ValidationError("--emulator and --client-id choose different modes; give one of them.")
        }
        if clientId == nil, authority != nil || !scopes.isEmpty || graphEndpoint != nil || redirectUri != nil {
            throw ValidationError("--authority, --scopes, --graph-endpoint and --redirect-uri need --client-id.")
        }
    }

    /// The tutorial's settings for a real app registration, from the options and the defaults. Nil without
    /// --client-id, which means the embedded emulator.
    var realSettings: GraphTutorialSettings? {
        guard let clientId else { return nil }
        return GraphTutorialSettings(
            clientId: clientId,
            authority: authority ?? "https://login.microsoftonline.com/common",
            redirectUri: redirectUri,
            scopes: ExampleInput.list(scopes) ?? ["user.read"],
            graphEndpoint: graphEndpoint ?? "https://graph.microsoft.com/")
    }

    func run() async throws {
        let log: @Sendable (String) -> Void = { line in print(line) }
        var embedded: IdentityEmulator?
        let settings: GraphTutorialSettings
        if let real = realSettings {
            settings = real
        } else {
            var configuration = EmulatorConfiguration.default
            // Emulator-only feature: approve the demo user's sign-in with no page.
            configuration.autoApproveUsername = configuration.defaults.username
            let started = try await IdentityEmulator.start(configuration)
            embedded = started
            log("Started the identity platform emulator at \(started.httpURL.absoluteString) (auto-approving \(started.username))")
            settings = GraphTutorialSettings(
                clientId: started.clientId, authority: "\(started.httpURL.absoluteString)/\(started.tenant)",
                scopes: ["user.read"], graphEndpoint: started.httpURL.absoluteString + "/",
                cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
        }
        let succeeded = await GraphTutorial(settings: settings, log: log).run()
        await embedded?.stop()
        if !succeeded { throw ExitCode.failure }
    }
}
