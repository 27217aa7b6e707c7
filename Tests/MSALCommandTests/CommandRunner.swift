import Foundation

/// What one run of the `msal` binary produced.
struct CommandOutput: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    /// The stdout as a JSON value.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }
}

/// Runs the built `msal` binary with a private environment (temporary HOME and data directory, so that no real
/// cache or configuration is touched).
struct CommandRunner: Sendable {
    let binary: URL
    let home: URL

    init() throws {
        binary = try Self.locateBinary()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// A runner of another copy of the binary, with the same private home.
    init(binary: URL, home: URL) {
        self.binary = binary
        self.home = home
    }

    /// The `msal` executable next to the test bundle (both live in the build's bin directory), or `MSAL_BINARY`.
    static func locateBinary() throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["MSAL_BINARY"] { candidates.append(URL(fileURLWithPath: override)) }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("msal"))
            directory = directory.deletingLastPathComponent()
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("msal"))
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/msal"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "The msal binary was not found; run `swift build` first."])
    }

    func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CommandOutput {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                           "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            let group = DispatchGroup()
            let outData = DataBox()
            let errData = DataBox()
            group.enter()
            DispatchQueue.global().async {
                outData.data = out.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
            group.enter()
            DispatchQueue.global().async {
                errData.data = err.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
            group.enter()
            process.terminationHandler = { _ in group.leave() }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            group.notify(queue: .global()) {
                continuation.resume(returning: CommandOutput(status: process.terminationStatus,
                                                             stdout: String(decoding: outData.data, as: UTF8.self),
                                                             stderr: String(decoding: errData.data, as: UTF8.self)))
            }
        }
    }
}

/// Data filled in by one reader thread and read after the group completes.
final class DataBox: @unchecked Sendable {
    var data = Data()
}
