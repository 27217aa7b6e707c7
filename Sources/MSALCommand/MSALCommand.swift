import ArgumentParser

/// `msal`: the MSAL for Swift command-line tool.
///
/// Each feature is a subcommand in its own file; add new ones to `subcommands`.
@main
struct MSALCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal",
        abstract: "MSAL for Swift command-line tool.",
        subcommands: [EmulatorCommand.self]
    )
}
