public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of a process produced.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Whether the run was stopped because it outlived its time bound.
    public var timedOut: Bool

    /// The stdout as a JSON value.
    public func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }
}

/// Runs processes for tests: the output is drained on dispatch threads (never the Swift concurrency pool, which
/// servers of the same test process need), both pipes at once (a child that fills one cannot stall on it), and
/// every run is bounded: past `timeout` the process gets SIGTERM, a second later SIGKILL, and the run returns what it
/// produced with ``ProcessOutput/timedOut`` set. Cancelling the calling task stops the process the same way.
public enum ProcessRunner {
    /// The bound of a run when none is given: long enough for the slowest tool run of the suite on a loaded machine.
    public static let defaultTimeout: TimeInterval = 180

    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: Data? = nil, timeout: TimeInterval = defaultTimeout) async throws -> ProcessOutput {
        let launch = Launch(executable, arguments, environment: environment, stdin: stdin)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ProcessOutput, any Error>) in
                do {
                    try launch.start()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, timeout)) { launch.stopIfRunning() }
                launch.finished.notify(queue: .global()) { continuation.resume(returning: launch.output()) }
            }
        } onCancel: {
            if launch.process.isRunning { stop(launch.process) }
        }
    }

    /// ``run(_:_:environment:stdin:timeout:)`` for synchronous tests: blocks the calling thread (at most `timeout`
    /// seconds and the second the process is given to stop).
    public static func runSynchronously(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                                        stdin: Data? = nil,
                                        timeout: TimeInterval = defaultTimeout) throws -> ProcessOutput {
        let launch = Launch(executable, arguments, environment: environment, stdin: stdin)
        try launch.start()
        if launch.finished.wait(timeout: .now() + max(0, timeout)) == .timedOut {
            launch.stopIfRunning()
            _ = launch.finished.wait(timeout: .now() + 5)
        }
        return launch.output()
    }

    /// SIGTERM, then SIGKILL a second later if the process is still there.
    static func stop(_ process: Process) {
        process.terminate()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    /// One process and its output: both pipes drained at once on dispatch threads, stdin written after the start,
    /// `finished` left when the process ended and both pipes are drained.
    private final class Launch: @unchecked Sendable {
        let process = Process()
        let finished = DispatchGroup()
        private let out = Pipe(), err = Pipe()
        private let input: Pipe?
        private let stdin: Data?
        private let collected = LockedData()
        private let stopped = Flag()

        init(_ executable: URL, _ arguments: [String], environment: [String: String]?, stdin: Data?) {
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            process.standardOutput = out
            process.standardError = err
            input = stdin.map { _ in Pipe() }
            self.stdin = stdin
            process.standardInput = input ?? FileHandle.nullDevice
        }

        func start() throws {
            for (pipe, isError) in [(out, false), (err, true)] {
                finished.enter()
                DispatchQueue.global().async { [self] in
                    collected.set(pipe.fileHandleForReading.readDataToEndOfFile(), error: isError)
                    finished.leave()
                }
            }
            finished.enter()
            process.terminationHandler = { [finished] _ in finished.leave() }
            try process.run()
            if let input, let stdin {
                DispatchQueue.global().async {
                    input.fileHandleForWriting.write(stdin)
                    try? input.fileHandleForWriting.close()
                }
            }
        }

        /// Stops the process if it still runs (its time bound passed).
        func stopIfRunning() {
            guard process.isRunning else { return }
            stopped.set()
            ProcessRunner.stop(process)
        }

        func output() -> ProcessOutput {
            let (stdout, stderr) = collected.both
            return ProcessOutput(status: process.isRunning ? -1 : process.terminationStatus,
                                 stdout: String(decoding: stdout, as: UTF8.self),
                                 stderr: String(decoding: stderr, as: UTF8.self), timedOut: stopped.isSet)
        }
    }

    /// The two outputs, written by their reader threads.
    private final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var stdout = Data(), stderr = Data()
        func set(_ data: Data, error: Bool) { lock.withLock { if error { stderr = data } else { stdout = data } } }
        var both: (Data, Data) { lock.withLock { (stdout, stderr) } }
    }
}

/// Finds an executable of this package: `override` (an environment variable's value) when set, else next to the
/// test bundle (both live in the build's bin directory), else in `.build/debug`.
public enum BuiltBinary {
    public static func locate(_ name: String, override: String? = nil) throws -> URL {
        var candidates: [URL] = []
        if let override { candidates.append(URL(fileURLWithPath: override)) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent(name))
            directory = directory.deletingLastPathComponent()
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)"))
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [
            NSLocalizedDescriptionKey: "The \(name) executable was not found; run `swift build --traits Tools` first."])
    }

    /// The package's root directory.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
