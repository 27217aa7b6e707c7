import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

// The Graph tutorial as a console program. Without --client-id it runs against the local identity platform
// emulator, started in-process with its (emulator-only) auto-approve switch; with real ids against Microsoft Entra ID.

let arguments = ExampleArguments()
if arguments.flag("help") {
    print("""
    USAGE: tutorial-graph [--client-id ID --authority URL [--scopes S,...] [--graph-endpoint URL] [--redirect-uri URI]]

    Without --client-id (or MSAL_CLIENT_ID) the tutorial runs against an in-process emulator with an in-memory cache.
    With a real app registration it signs in through the system browser and uses MSAL's default cache file.
    Environment: MSAL_CLIENT_ID, MSAL_AUTHORITY, MSAL_SCOPES, MSAL_GRAPH_ENDPOINT, MSAL_REDIRECT_URI.
    """)
    exit(0)
}

let log: @Sendable (String) -> Void = { line in print(line) }
var emulator: IdentityEmulator?
let settings: GraphTutorialSettings
if let clientId = arguments.value("client-id", env: "MSAL_CLIENT_ID") {
    settings = GraphTutorialSettings(
        clientId: clientId,
        authority: arguments.value("authority", env: "MSAL_AUTHORITY") ?? "https://login.microsoftonline.com/common",
        redirectUri: arguments.value("redirect-uri", env: "MSAL_REDIRECT_URI"),
        scopes: arguments.list("scopes", env: "MSAL_SCOPES") ?? ["user.read"],
        graphEndpoint: arguments.value("graph-endpoint", env: "MSAL_GRAPH_ENDPOINT") ?? "https://graph.microsoft.com/")
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
exit(succeeded ? 0 : 1)
