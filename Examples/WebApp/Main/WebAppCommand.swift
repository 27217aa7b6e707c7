import ArgumentParser
import Foundation
import Hummingbird
import MSAL
import MSALEmulator
import WebAppKit

/// The seeds' tutorial as a web app. Without --client-id it runs against an identity platform emulator started in
/// this process (sign in as adele@contoso.onmicrosoft.com, password Passw0rd!).
@main
struct WebAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-app",
        abstract: "A web app that signs users in with Microsoft and shows their Graph profile.",
        discussion: """
        Serves http://localhost:<port>/ until stopped. Without --client-id, against an identity platform emulator \
        started in this process: open the printed URL and sign in as adele@contoso.onmicrosoft.com (Passw0rd!).

        With a real app registration (a "Web" platform app with the redirect URI http://localhost:<port>/callback \
        and a client secret in MSAL_CLIENT_SECRET): --client-id and --authority.

        Examples:
          web-app --port 8080
          MSAL_CLIENT_SECRET=... web-app --client-id <id> --authority https://login.microsoftonline.com/organizations
        """
    )

    @Option(help: ArgumentHelp("The application (client) id; without it, the embedded emulator is used.", valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("The authority URL.", valueName: "url"))
    var authority = "https://login.microsoftonline.com/organizations"

    @Option(help: ArgumentHelp("The port to serve on (0: any free port).", valueName: "port"))
    var port = 8080

    func run() async throws {
        var emulator: IdentityEmulator?
        let config: MSALConfidentialClientApplicationConfig
        var graph = "https://graph.microsoft.com/"
        if let clientId {
            guard let secret = ProcessInfo.processInfo.environment["MSAL_CLIENT_SECRET"], !secret.isEmpty else {
                throw ValidationError("Set MSAL_CLIENT_SECRET to the app's client secret.")
            }
            config = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: .secret(secret),
                                                             authority: try MSALAuthority(url: URL(string: authority)!))
        } else {
            let started = try await IdentityEmulator.start(EmulatorConfiguration.default)
            emulator = started
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
        await emulator?.stop()
    }
}
