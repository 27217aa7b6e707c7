import Foundation
import MSALTestSupport

/// Runs the built `msal` binary with a private environment (temporary HOME and data directory, so that no real
/// cache or configuration is touched), through the bounded ``ProcessRunner``.
struct CommandRunner: Sendable {
    let binary: URL
    let home: URL

    init() throws {
        binary = try Self.locateBinary()
        home = ScratchDirectory.path("msal-cli-test")   // removed when the test process exits
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// A runner of another copy of the binary, with the same private home.
    init(binary: URL, home: URL) {
        self.binary = binary
        self.home = home
    }

    /// The `msal` executable next to the test bundle (both live in the build's bin directory), or `MSAL_BINARY`.
    static func locateBinary() throws -> URL {
        try BuiltBinary.locate("msal", override: ProcessInfo.processInfo.environment["MSAL_BINARY"])
    }

    /// Runs `msal` with `arguments` (and `stdin`, if any), at most `timeout` seconds.
    func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil,
             timeout: TimeInterval = ProcessRunner.defaultTimeout) async throws -> ProcessOutput {
        var environment = ["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                           "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for (key, value) in extra { environment[key] = value }
        return try await ProcessRunner.run(binary, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }
}
