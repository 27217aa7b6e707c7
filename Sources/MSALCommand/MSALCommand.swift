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
        (MSAL_AUTHORITY), --tenant (MSAL_TENANT), --client-id (MSAL_CLIENT_ID), --scopes (MSAL_SCOPES), \
        --redirect-uri (MSAL_REDIRECT_URI), --cache (MSAL_CACHE), --account (MSAL_ACCOUNT), --known-authority \
        (MSAL_KNOWN_AUTHORITIES), --graph-endpoint (MSAL_GRAPH_ENDPOINT), --profile (MSAL_PROFILE), --timeout \
        (MSAL_TIMEOUT: seconds to wait for each answer, default 30), --json (MSAL_JSON=1). A flag or variable \
        wins over the profile of the configuration file $XDG_CONFIG_HOME/msal/config.json (MSAL_CONFIG names \
        another), which wins over the defaults. Without --cache, tokens are kept in MSAL's encrypted default cache \
        (`msal status` says how). The tool declares the cp1 client capability (continuous access evaluation); \
        MSAL_CLIENT_CAPABILITIES="" declares none.

        Shell completion: msal --generate-completion-script bash|zsh|fish. Installed with scripts/install.sh, \
        with a man page (man msal).

        Results go to stdout, messages and logs to stderr. Only `msal token` prints a token.

        Exit codes: 0 success; 1 failure; 3 interaction required (no account, or the user must sign in again: run \
        `msal login`, \
        with the exact command printed); 4 sign-in not completed (cancelled, declined, or the device code expired); 64 \
        usage error (an option or its value malformed, a CA file that cannot be read); 69 unavailable (--broker with no \
        identity broker answering).

        Examples:
          msal demo
          export MSAL_CLIENT_ID=11111111-2222-3333-4444-555555555555
          msal login
          msal status
          msal token
          msal graph /me
          msal accounts --json
          msal logout
        """,
        version: "msal (MSAL for Swift) \(MSALPublicClientApplication.sdkVersion ?? "unknown")",
        subcommands: [
            LoginCommand.self, StatusCommand.self, SwitchCommand.self, TokenCommand.self, AccountsCommand.self,
            LogoutCommand.self, GraphCommand.self, NativeCommand.self,
            DemoCommand.self, EmulatorCommand.self,
        ]
    )
}
