import Foundation
import MSALCommandSupport
import MSALSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Questions asked at the terminal: the question on stderr, the answer one line of standard input. A secret (a
/// password) is read with the terminal's echo off, so it never shows on the screen or in a terminal recording.
enum TerminalPrompt {
    /// The longest answer kept.
    static let limit = 4096

    /// Asks `question` and returns the answer (without its end of line); nil at the end of input.
    static func ask(_ question: String) -> String? {
        show(question)
        return StandardInput.readLine(limit: limit)
    }

    /// Asks for a secret with echo off (when standard input is a terminal), then ends the line (the typed one was
    /// not shown). A signal that ends the process meanwhile (Ctrl-C, a hang-up, `kill`) puts the echo back first.
    static func askSecret(_ question: String) -> String? {
        show(question)
        var saved = termios()
        let isTerminal = isatty(0) == 1 && tcgetattr(0, &saved) == 0
        var previous: [(signal: Int32, handler: (@convention(c) (Int32) -> Void)?)] = []
        if isTerminal {
            echoToRestore = saved
            previous = echoRestoringSignals.map { ($0, signal($0, restoreEchoAndEnd)) }
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(0, TCSAFLUSH, &silent)
        }
        defer {
            if isTerminal {
                _ = tcsetattr(0, TCSAFLUSH, &saved)
                for (number, handler) in previous { signal(number, handler) }
            }
            show("\n")
        }
        return StandardInput.readLine(limit: limit)
    }

    /// The signals that end the process at a prompt by default.
    private static let echoRestoringSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private static func show(_ text: String) {
        let data = Array(TerminalText.safe(text).utf8)
        data.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// The terminal's settings before a secret prompt turned echo off, for ``restoreEchoAndEnd(_:)``. Written only by
/// the prompt before it installs the handler.
nonisolated(unsafe) private var echoToRestore = termios()

/// A signal arrived while echo was off: puts the settings back (`tcsetattr` is async-signal-safe), then ends the
/// process with the signal's default action, as it would have ended.
private func restoreEchoAndEnd(_ number: Int32) {
    _ = tcsetattr(0, TCSAFLUSH, &echoToRestore)
    signal(number, SIG_DFL)
    raise(number)
}
