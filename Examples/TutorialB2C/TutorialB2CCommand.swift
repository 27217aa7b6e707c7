import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

/// The Azure AD B2C sample as a console program. Without a client id it runs against the local identity platform
/// emulator's B2C tenant, started in-process with its (emulator-only) auto-approve switch.
@main
struct TutorialB2CCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tutorial-b2c",
        abstract: "Sign up or sign in, edit the profile, refresh silently and sign out with Azure AD B2C user flows.",
        discussion: """
        Without --client-id (or MSAL_CLIENT_ID) the sample runs against the B2C tenant of an identity platform \
        emulator started in this process, with an in-memory token cache; the emulator's auto-approve switch (an \
        emulator-only feature) signs the demo user carol@example.com in with no page.

        With a real B2C app registration it signs in through the system browser with a loopback redirect, by \
        policy (user flow), and uses MSAL's default token cache file. Give the scopes of your API.

        Each option falls back to an environment variable: MSAL_CLIENT_ID, B2C_TENANT, B2C_AUTHORITY_HOST, \
        MSAL_SCOPES, B2C_SIGNIN_POLICY, B2C_EDIT_PROFILE_POLICY, B2C_API_URL, MSAL_REDIRECT_URI. Tokens are never \
        printed.

        Examples:
          tutorial-b2c
          tutorial-b2c --client-id <id> --tenant contoso.onmicrosoft.com \\
            --scopes https://contoso.onmicrosoft.com/api/demo.read
        """
    )

    @Option(help: ArgumentHelp("The application (client) id; without it, the embedded emulator is used.",
                               valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("The B2C tenant (default: fabrikamb2c.onmicrosoft.com).", valueName: "name"))
    var tenant: String?

    @Option(help: ArgumentHelp("The authority host (default: https://<tenant>.b2clogin.com).", valueName: "url"))
    var authorityHost: String?

    @Option(help: ArgumentHelp("The scopes of your API, comma- or space-separated; repeatable.", valueName: "scopes"))
    var scopes: [String] = []

    @Option(help: ArgumentHelp("The sign-up or sign-in user flow (default: B2C_1_signupsignin).", valueName: "policy"))
    var signinPolicy: String?

    @Option(help: ArgumentHelp("The profile editing user flow (default: B2C_1_profileediting).", valueName: "policy"))
    var editProfilePolicy: String?

    @Option(help: ArgumentHelp("The API to call with the access token (default: none, the call is skipped).",
                               valueName: "url"))
    var apiURL: String?

    @Option(help: ArgumentHelp("The redirect URI (default: http://localhost on a loopback port).", valueName: "uri"))
    var redirectUri: String?

    func validate() throws {
        if clientId == nil, ExampleInput.value("MSAL_CLIENT_ID", in: ProcessInfo.processInfo.environment) == nil,
           tenant != nil || authorityHost != nil || !scopes.isEmpty || signinPolicy != nil
            || editProfilePolicy != nil || apiURL != nil || redirectUri != nil {
            throw ValidationError("The B2C options need --client-id; without it the sample uses the embedded emulator.")
        }
        if let apiURL, URL(string: apiURL) == nil {
            throw ValidationError("--api-url is not a URL: \(apiURL)")
        }
    }

    /// The sample's settings for a real app registration: options first, then the environment, then defaults.
    /// Nil when no client id is given, which means the embedded emulator.
    func realSettings(environment: [String: String]) -> B2CTutorialSettings? {
        guard let clientId = clientId ?? ExampleInput.value("MSAL_CLIENT_ID", in: environment) else { return nil }
        let tenant = tenant ?? ExampleInput.value("B2C_TENANT", in: environment) ?? "fabrikamb2c.onmicrosoft.com"
        let scopeList = ExampleInput.list(scopes)
            ?? ExampleInput.value("MSAL_SCOPES", in: environment).flatMap { ExampleInput.list([$0]) }
        return B2CTutorialSettings(
            clientId: clientId, tenantName: tenant,
            authorityHost: authorityHost ?? ExampleInput.value("B2C_AUTHORITY_HOST", in: environment)
                ?? "https://\(tenant.split(separator: ".").first ?? "fabrikamb2c").b2clogin.com",
            signupOrSigninPolicy: signinPolicy ?? ExampleInput.value("B2C_SIGNIN_POLICY", in: environment)
                ?? "B2C_1_signupsignin",
            editProfilePolicy: editProfilePolicy ?? ExampleInput.value("B2C_EDIT_PROFILE_POLICY", in: environment)
                ?? "B2C_1_profileediting",
            scopes: scopeList ?? [],
            redirectUri: redirectUri ?? ExampleInput.value("MSAL_REDIRECT_URI", in: environment),
            apiURL: (apiURL ?? ExampleInput.value("B2C_API_URL", in: environment)).flatMap(URL.init(string:)))
    }

    func run() async throws {
        let log: @Sendable (String) -> Void = { line in print(line) }
        var emulator: IdentityEmulator?
        let settings: B2CTutorialSettings
        if let real = realSettings(environment: ProcessInfo.processInfo.environment) {
            settings = real
        } else {
            var configuration = EmulatorConfiguration.default
            // Emulator-only feature: approve the B2C demo user's sign-ins with no page.
            configuration.autoApproveUsername = "carol@example.com"
            let started = try await IdentityEmulator.start(configuration)
            emulator = started
            log("Started the identity platform emulator at \(started.httpURL.absoluteString) (auto-approving carol@example.com)")
            settings = B2CTutorialSettings(
                clientId: started.clientId, tenantName: "fabrikamb2c.onmicrosoft.com",
                authorityHost: started.httpURL.absoluteString,
                scopes: ["https://fabrikamb2c.onmicrosoft.com/api/demo.read"],
                cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
        }
        let succeeded = await B2CTutorial(settings: settings, log: log).run()
        await emulator?.stop()
        if !succeeded { throw ExitCode.failure }
    }
}
