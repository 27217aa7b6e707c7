import ArgumentParser
import MSAL

/// `msal`: the MSAL for Swift command-line tool.
///
/// Each feature is a subcommand in its own file; add new ones to `subcommands`.
@main
struct MSALCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal",
        abstract: "MSAL for Swift command-line tool: sign in, get tokens, call Microsoft Graph.",
        discussion: """
        Options common to the account commands (each also read from an environment variable): --authority \
        (MSAL_AUTHORITY), --client-id (MSAL_CLIENT_ID), --scopes (MSAL_SCOPES), --redirect-uri (MSAL_REDIRECT_URI), \
        --cache (MSAL_CACHE), --account (MSAL_ACCOUNT), --graph-endpoint (MSAL_GRAPH_ENDPOINT), --json (MSAL_JSON=1).

        Results go to stdout, messages and logs to stderr. Only `msal token` prints a token.

        Exit codes: 0 success; 1 failure; 3 interaction required (no account, or the user must sign in again: run \
        `msal login`); 4 sign-in not completed (cancelled, declined, or the device code expired); 64 usage error.

        Examples:
          msal demo
          export MSAL_CLIENT_ID=11111111-2222-3333-4444-555555555555
          msal login --device-code
          msal token
          msal graph /me
          msal accounts --json
          msal logout
        """,
        version: "msal (MSAL for Swift) \(MSALPublicClientApplication.sdkVersion ?? "unknown")",
        subcommands: [
            LoginCommand.self, StatusCommand.self, SwitchCommand.self, TokenCommand.self, AccountsCommand.self,
            LogoutCommand.self, GraphCommand.self,
            DemoCommand.self, EmulatorCommand.self,
        ]
    )
}
