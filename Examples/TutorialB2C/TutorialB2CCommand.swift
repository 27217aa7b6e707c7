import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import MSALTesting

/// The Azure AD B2C sample as a console program. By default (or with --emulator) it runs against the local identity
/// platform emulator's B2C tenant, started in-process with its (emulator-only) auto-approve switch; with --client-id
/// against a real B2C tenant. Only the command line chooses: no environment variable is read.
@main
struct TutorialB2CCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tutorial-b2c",
        abstract: "Sign up or sign in, edit the profile, refresh silently and sign out with Azure AD B2C user flows.",
        discussion: """
        Without --client-id (or with --emulator) the sample runs against the B2C tenant of an identity platform \
        emulator started in this process, with an in-memory token cache; the emulator's auto-approve switch (an \
        emulator-only feature) signs the demo user carol@example.com in with no page.

        With --client-id (a real B2C app registration) it signs in through the system browser with a loopback \
        redirect, by policy (user flow), and uses MSAL's default token cache file. Give the scopes of your API.

        The mode and every setting come from the command line only; environment variables such as MSAL_CLIENT_ID \
        are not read. Tokens are never printed.

        Examples:
          tutorial-b2c
          tutorial-b2c --client-id <id> --tenant contoso.onmicrosoft.com \\
            --scopes https://contoso.onmicrosoft.com/api/demo.read
        """
    )

    @Flag(help: "Run against the embedded identity platform emulator (the default without --client-id).")
    var emulator = false

    @Option(help: ArgumentHelp("The application (client) id of a real B2C app registration.", valueName: "id"))
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
        if emulator, clientId != nil {
            throw ValidationError("--emulator and --client-id choose different modes; give one of them.")
        }
        if clientId == nil, tenant != nil || authorityHost != nil || !scopes.isEmpty || signinPolicy != nil
            || editProfilePolicy != nil || apiURL != nil || redirectUri != nil {
            throw ValidationError("The B2C options need --client-id; without it the sample uses the embedded emulator.")
        }
        if let apiURL, URL(string: apiURL) == nil {
            throw ValidationError("--api-url is not a URL: \(apiURL)")
        }
    }

    /// The sample's settings for a real app registration, from the options and the defaults. Nil without
    /// --client-id, which means the embedded emulator.
    var realSettings: B2CTutorialSettings? {
        guard let clientId else { return nil }
        let tenant = tenant ?? "fabrikamb2c.onmicrosoft.com"
        return B2CTutorialSettings(
            clientId: clientId, tenantName: tenant,
            authorityHost: authorityHost ?? "https://\(tenant.split(separator: ".").first ?? "fabrikamb2c").b2clogin.com",
            signupOrSigninPolicy: signinPolicy ?? "B2C_1_signupsignin",
            editProfilePolicy: editProfilePolicy ?? "B2C_1_profileediting",
            scopes: ExampleInput.list(scopes) ?? [],
            redirectUri: redirectUri,
            apiURL: apiURL.flatMap(URL.init(string:)))
    }

    func run() async throws {
        let log: @Sendable (String) -> Void = { line in print(line) }
        var embedded: IdentityEmulator?
        let settings: B2CTutorialSettings
        if let real = realSettings {
            settings = real
        } else {
            var configuration = EmulatorConfiguration.default
            // Emulator-only feature: approve the B2C demo user's sign-ins with no page.
            configuration.autoApproveUsername = "carol@example.com"
            let started = try await IdentityEmulator.start(configuration)
            embedded = started
            log("Started the identity platform emulator at \(started.httpURL.absoluteString) (auto-approving carol@example.com)")
            settings = B2CTutorialSettings(
                clientId: started.clientId, tenantName: "fabrikamb2c.onmicrosoft.com",
                authorityHost: started.httpURL.absoluteString,
                scopes: ["https://fabrikamb2c.onmicrosoft.com/api/demo.read"],
                cacheStorage: MSALInMemoryTokenCacheStorage(), webAuthenticator: EmulatorAutoApproveAuthenticator())
        }
        let succeeded = await B2CTutorial(settings: settings, log: log).run()
        await embedded?.stop()
        if !succeeded { throw ExitCode.failure }
    }
}
