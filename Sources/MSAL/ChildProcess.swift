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
        // What the program printed so far, kept by two reader threads; the call ends when both outputs are closed and
        // the program has exited, or at the limit, whichever comes first.
        let standardOutput = LockedBox(Data()), standardError = LockedBox(Data())
        let ended = LockedBox(false)
        let timedOut = LockedBox(false)
        let pid = process.processIdentifier
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Whoever ends the call first (the readers, or the limit) resumes it; the other does nothing.
            let claim: @Sendable () -> Bool = { ended.withLock { done in defer { done = true }; return !done } }
            // Reading blocks until the program and every process it started close their outputs: on threads of their
            // own, never on a shared pool (two runs at once could otherwise take every worker thread).
            Thread {
                let errorRead = DispatchSemaphore(value: 0)
                Thread {
                    Self.readAll(errors.fileHandleForReading, into: standardError)
                    errorRead.signal()
                }.start()
                Self.readAll(output.fileHandleForReading, into: standardOutput)
                errorRead.wait()
                process.waitUntilExit()
                if claim() { continuation.resume() }
            }.start()
            // The limit is a sleep in a task, not a blocked thread. At the limit the program's whole process group is
            // killed (the Azure CLI is a shell script that starts Python, which would keep the outputs open), and the
            // call ends at once with what was read, without waiting for the outputs to close.
            Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                guard claim() else { return }
                timedOut.set(true)
                if kill(-pid, SIGKILL) != 0 { kill(pid, SIGKILL) }
                continuation.resume()
            }
        }
        if timedOut.get() {
            return Outcome(status: -1, standardOutput: standardOutput.get(), standardError: standardError.get(), timedOut: true)
        }
        return Outcome(status: process.terminationStatus, standardOutput: standardOutput.get(),
                       standardError: standardError.get(), timedOut: false)
        #else
        throw MSALErrorInfo.invalidParameter("running \(program) is not possible on this platform.")
        #endif
    }

    /// Reads `handle` to its end into `kept`, keeping at most ``outputLimit`` bytes (the rest is read and dropped, so
    /// that the program never blocks on a full pipe).
    private static func readAll(_ handle: FileHandle, into kept: LockedBox<Data>) {
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return }
            kept.withLock { data in
                if data.count < outputLimit { data.append(chunk.prefix(outputLimit - data.count)) }
            }
        }
    }
}
