import ArgumentParser
import Foundation
import MSALCommandSupport
import MSALEmulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServeCommand {
    /// Starts the emulated broker on the session bus: sign-ins approved by the auto-approve user, else asked for on
    /// this terminal (stdin), else refused with the broker's configuration error.
    static func startBroker(_ emulator: IdentityEmulator, autoApprove: String?) throws -> EmulatedIdentityBroker {
        #if os(Linux)
        let approve: EmulatedBrokerApprover? = autoApprove == nil && isatty(STDIN_FILENO) == 1 ? terminalApprover : nil
        return try EmulatedIdentityBroker.start(for: emulator, approve: approve)
        #else
        throw ValidationError("--broker needs Linux (the broker is served on the D-Bus session bus).")
        #endif
    }

    /// Asks on the terminal which user signs in (the application's hint by default); an empty answer or end of input
    /// cancels the sign-in. One question at a time.
    static let terminalApprover: EmulatedBrokerApprover = { prompt in
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                terminalLock.lock()
                defer { terminalLock.unlock() }
                let hint = prompt.loginHint.map { " [\(TerminalText.inline($0))]" } ?? ""
                let question = "Broker sign-in for \(TerminalText.inline(prompt.application)) "
                    + "(\(TerminalText.inline(prompt.scopes.joined(separator: " ")))). User name\(hint), empty to cancel: "
                FileHandle.standardError.write(Data(question.utf8))
                guard let line = readLine(strippingNewline: true) else { return continuation.resume(returning: nil) }
                let answer = line.trimmingCharacters(in: .whitespaces)
                continuation.resume(returning: answer.isEmpty ? (line.isEmpty ? nil : prompt.loginHint) : answer)
            }
        }
    }

    private static let terminalLock = NSLock()
}
