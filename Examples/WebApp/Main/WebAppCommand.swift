import ArgumentParser
import Foundation
import Hummingbird
import MSAL
import MSALEmulator
import MSALExampleWebAppKit

/// The seeds' tutorial as a web app. Without --client-id (or with --emulator) it runs against an identity platform emulator started in
/// this process (sign in as adele@contoso.onmicrosoft.com, password Passw0rd!).
@main
struct WebAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-app",
        abstract: "A web app that signs users in with Microsoft and shows their Graph profile.",
        discussion: """
        Serves http://localhost:<port>/ until stopped. Without --client-id (or with --emulator), against an \
        identity platform emulator started in this process: open the printed URL and sign in as adele@contoso.onmicrosoft.com (Passw0rd!).

        With a real app registration (a "Web" platform app with the redirect URI http://localhost:<port>/callback): \
        --client-id, --authority, and --client-secret-env naming the environment variable that holds the app's \
        client secret (so that the secret is not on the command line).

        The mode comes from the command line only: no environment variable is read except the one \
        --client-secret-env names.

        Examples:
          web-app --port 8080
          WEB_APP_SECRET=... web-app --client-id <id> --client-secret-env WEB_APP_SECRET \\
            --authority https://login.microsoftonline.com/organizations
        """
    )

    @Flag(help: "Run against the embedded identity platform emulator (the default without --client-id).")
    var emulator = false

    @Option(help: ArgumentHelp("The application (client) id; without it, the embedded emulator is used.", valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("The authority URL.", valueName: "url"))
    var authority = "https://login.microsoftonline.com/organizations"

    @Option(help: ArgumentHelp("The environment variable that holds the app's client secret (with --client-id).",
                               valueName: "name"))
    var clientSecretEnv: String?

    @Option(help: ArgumentHelp("The port to serve on (0: any free port).", valueName: "port"))
    var port = 8080

    func validate() throws {
        if emulator && clientId != nil {
            throw ValidationError("--emulator and --client-id choose different modes; give one of them.")
        }
        if (clientId == nil) != (clientSecretEnv == nil) {
            throw ValidationError("--client-id and --client-secret-env go together.")
        }
        if let clientSecretEnv, ProcessInfo.processInfo.environment[clientSecretEnv]?.isEmpty != false {
            throw ValidationError("The environment variable \(clientSecretEnv) (--client-secret-env) is not set.")
        }
    }

    func run() async throws {
        var embedded: IdentityEmulator?
        let config: MSALConfidentialClientApplicationConfig
        var graph = "https://graph.microsoft.com/"
        if let clientId, let clientSecretEnv, let secret = ProcessInfo.processInfo.environment[clientSecretEnv] {
            config = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: .secret(secret),
                                                             authority: try MSALAuthority(url: URL(string: authority)!))
        } else {
            let started = try await IdentityEmulator.start(EmulatorConfiguration.default)
            embedded = started
            graph = started.httpURL.absoluteString + "/"
            config = MSALConfidentialClientApplicationConfig(
                clientId: EmulatorConfiguration.webAppClientId, clientCredential: .secret("emulator-secret"),
                authority: try MSALAuthority(url: URL(string: "\(started.httpURL.absoluteString)/\(started.tenant)")!))
            print("Started the identity platform emulator at \(started.httpURL.absoluteString); sign in as \(started.username) (\(started.password))")
        }
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let app = try MSALConfidentialClientApplication(configuration: config)
        try await WebAppServer.run(app: app, graphEndpoint: graph, port: port) { url in
            FileHandle.standardOutput.write(Data("Serving \(url)/\n".utf8))
        }
        await embedded?.stop()
    }
}
