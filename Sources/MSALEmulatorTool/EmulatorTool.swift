import ArgumentParser

/// `msal-emulator`: the local Microsoft identity platform emulator, and the demo that runs the Graph tutorial on it.
///
/// A separate program from `msal`, so that everyday `msal` commands do not load the emulator's server stack.
/// `msal emulator` and `msal demo` start this program.
@main
struct EmulatorTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal-emulator",
        abstract: "A local emulator of the Microsoft identity platform (v2.0) and Microsoft Graph /me, and a demo on it.",
        discussion: """
        Examples:
          msal-emulator demo
          msal-emulator serve --json
          msal-emulator --port 8443 --auto-approve alice@contoso.example
        """,
        subcommands: [ServeCommand.self, DemoCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
