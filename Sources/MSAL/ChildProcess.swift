import Foundation
import MSALCore

/// Runs a program to its end with a time limit, collecting what it prints (for the credential chain's Azure CLI
/// step). Standard input is empty; past the limit the program is killed.
enum ChildProcess {
    struct Outcome: Sendable {
        var status: Int32
        var standardOutput: Data
        var standardError: Data
        var timedOut: Bool
    }

    /// At most this much of each output is kept.
    static let outputLimit = 4 << 20

    static func run(_ program: String, _ arguments: [String], environment: [String: String],
                    timeout: TimeInterval) async throws -> Outcome {
        #if os(macOS) || os(Linux)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw MSALErrorInfo.invalidParameter("\(program) could not be started: \(error.localizedDescription)")
        }
        let timedOut = LockedBox(false)
        // The limit is a sleep in a task, not a blocked thread; the program is killed only while it still runs.
        let deadline = Task {
            try await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
            if process.isRunning {
                timedOut.set(true)
                kill(process.processIdentifier, SIGKILL)
            }
        }
        defer { deadline.cancel() }
        // Reading blocks until the program closes its outputs: on threads of their own, never on a shared pool
        // (two runs at once could otherwise take every worker thread and wait on each other).
        let (standardOutput, standardError) = await withCheckedContinuation { continuation in
            Thread {
                let errorText = LockedBox(Data())
                let errorRead = DispatchSemaphore(value: 0)
                Thread {
                    errorText.set(Self.readAll(errors.fileHandleForReading))
                    errorRead.signal()
                }.start()
                let outputText = Self.readAll(output.fileHandleForReading)
                errorRead.wait()
                process.waitUntilExit()
                continuation.resume(returning: (outputText, errorText.get()))
            }.start()
        }
        return Outcome(status: process.terminationStatus, standardOutput: standardOutput, standardError: standardError,
                       timedOut: timedOut.get())
        #else
        throw MSALErrorInfo.invalidParameter("running \(program) is not possible on this platform.")
        #endif
    }

    /// Reads `handle` to its end, keeping at most ``outputLimit`` bytes (the rest is read and dropped, so that the
    /// program never blocks on a full pipe).
    private static func readAll(_ handle: FileHandle) -> Data {
        var kept = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return kept }
            if kept.count < outputLimit { kept.append(chunk.prefix(outputLimit - kept.count)) }
        }
    }
}
