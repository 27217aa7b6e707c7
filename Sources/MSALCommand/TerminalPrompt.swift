import Foundation
import MSALCommandSupport

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
        return readLine()
    }

    /// Asks for a secret with echo off (when standard input is a terminal), then ends the line (the typed one was
    /// not shown).
    static func askSecret(_ question: String) -> String? {
        show(question)
        var saved = termios()
        let isTerminal = isatty(0) == 1 && tcgetattr(0, &saved) == 0
        if isTerminal {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(0, TCSAFLUSH, &silent)
        }
        defer {
            if isTerminal { _ = tcsetattr(0, TCSAFLUSH, &saved) }
            show("\n")
        }
        return readLine()
    }

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

    /// One line of standard input, at most ``limit`` bytes kept; nil at the end of input.
    private static func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            if bytes.count < limit { bytes.append(byte) }
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
