import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

// The Azure AD B2C sample as a console program. Without --client-id it runs against the local identity platform
// emulator's B2C tenant, started in-process with its (emulator-only) auto-approve switch.

let arguments = ExampleArguments()
if arguments.flag("help") {
    print("""
    USAGE: tutorial-b2c [--client-id ID --tenant NAME --authority-host URL --scopes S,... [--signin-policy P]
                        [--edit-profile-policy P] [--api-url URL] [--redirect-uri URI]]

    Without --client-id (or MSAL_CLIENT_ID) the sample runs against an in-process emulator with an in-memory cache.
    Environment: MSAL_CLIENT_ID, B2C_TENANT, B2C_AUTHORITY_HOST, MSAL_SCOPES, B2C_SIGNIN_POLICY,
    B2C_EDIT_PROFILE_POLICY, B2C_API_URL, MSAL_REDIRECT_URI.
    """)
    exit(0)
}

let log: @Sendable (String) -> Void = { line in print(line) }
var emulator: IdentityEmulator?
let settings: B2CTutorialSettings
if let clientId = arguments.value("client-id", env: "MSAL_CLIENT_ID") {
    let tenant = arguments.value("tenant", env: "B2C_TENANT") ?? "fabrikamb2c.onmicrosoft.com"
    settings = B2CTutorialSettings(
        clientId: clientId, tenantName: tenant,
        authorityHost: arguments.value("authority-host", env: "B2C_AUTHORITY_HOST")
            ?? "https://\(tenant.split(separator: ".").first ?? "fabrikamb2c").b2clogin.com",
        signupOrSigninPolicy: arguments.value("signin-policy", env: "B2C_SIGNIN_POLICY") ?? "B2C_1_signupsignin",
        editProfilePolicy: arguments.value("edit-profile-policy", env: "B2C_EDIT_PROFILE_POLICY") ?? "B2C_1_profileediting",
        scopes: arguments.list("scopes", env: "MSAL_SCOPES") ?? [],
        redirectUri: arguments.value("redirect-uri", env: "MSAL_REDIRECT_URI"),
        apiURL: arguments.value("api-url", env: "B2C_API_URL").flatMap(URL.init(string:)))
} else {
    var configuration = EmulatorConfiguration.default
    // Emulator-only feature: approve the B2C demo user's sign-ins with no page.
    configuration.autoApproveUsername = "carol@example.com"
    let started = try await IdentityEmulator.start(configuration)
    emulator = started
    log("Started the identity platform emulator at \(started.httpURL.absoluteString) (auto-approving carol@example.com)")
    settings = B2CTutorialSettings(
        clientId: started.clientId, tenantName: "fabrikamb2c.onmicrosoft.com", authorityHost: started.httpURL.absoluteString,
        scopes: ["https://fabrikamb2c.onmicrosoft.com/api/demo.read"],
        cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
}
let succeeded = await B2CTutorial(settings: settings, log: log).run()
await emulator?.stop()
exit(succeeded ? 0 : 1)
