import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `msal emulator` and `msal demo` run the `msal-emulator` program installed beside `msal`, so that `msal` itself
/// never loads the emulator's server stack.
enum EmulatorProgram {
    static let name = "msal-emulator"

    /// Replaces this process with `msal-emulator <subcommand> <arguments>`; throws when it cannot be started.
    static func exec(_ subcommand: String, _ arguments: [String]) throws -> Never {
        let path = location()
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIError(message: "`msal \(subcommand)` runs \(name), which is not installed beside msal (looked for \(path)). "
                + "Build it with `swift build --traits Tools --product \(name)`, or run `swift run --traits Tools \(name) \(subcommand)`.")
        }
        let argv = [path, subcommand] + arguments
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(path, cArguments)
        let reason = String(cString: strerror(errno))
        throw CLIError(message: "Could not start \(path): \(reason).")
    }

    /// Runs `exec`, reporting a failure to start as one line on stderr and the tool's exit code.
    static func forward(_ subcommand: String, _ arguments: [String]) throws -> Never {
        do {
            try exec(subcommand, arguments)
        } catch let error as CLIError {
            CLI.err("msal: error: " + error.message)
            throw ExitCode(error.exitCode)
        }
    }

    /// The path of `msal-emulator` in the directory of this executable.
    static func location() -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
    }
}

/// `msal emulator`: `msal-emulator serve` (see `msal-emulator serve --help`).
struct EmulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Run a local emulator of the Microsoft identity platform (v2.0) and Microsoft Graph /me.",
        discussion: "Runs `msal-emulator serve` with the same options; see `msal-emulator serve --help`."
    )

    @Argument(parsing: .captureForPassthrough, help: "Options of `msal-emulator serve`.")
    var arguments: [String] = []

    func run() throws {
        try EmulatorProgram.forward("serve", arguments)
    }
}

/// `msal demo`: `msal-emulator demo`.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the Graph tutorial end to end against a local emulator (no account or network needed).",
        discussion: "Runs `msal-emulator demo`; see `msal-emulator demo --help`."
    )

    @Argument(parsing: .captureForPassthrough, help: "Options of `msal-emulator demo`.")
    var arguments: [String] = []

    func run() throws {
        try EmulatorProgram.forward("demo", arguments)
    }
}
