import Foundation
package import Logging

/// Text for the terminal. Much of what `msal` prints came from outside: error descriptions and the device code
/// message from the identity provider, user names and hosts from the cache file, Graph's answers. A terminal
/// obeys control characters wherever they come from (ESC sequences retitle the window, clear the screen, move
/// the cursor to fake a prompt; BEL rings), so every line the tool writes passes through ``safe(_:)`` first.
package enum TerminalText {
    /// `text` with every character a terminal could act on replaced by a visible `\uXXXX` escape: the C0 controls
    /// except newline and tab (ESC, BEL, CR, backspace, ...), DEL, the C1 controls (such as the one-byte CSI,
    /// U+009B), the line and paragraph separators, and the bidirectional overrides and isolates that reorder
    /// what is shown. Everything else is kept.
    ///
    /// The escape is JSON's, and JSON puts characters like these only inside strings, so JSON text stays valid
    /// JSON with the same value (`JSONSerialization` already escapes C0 controls, but not DEL or C1).
    package static func safe(_ text: String) -> String {
        escaped(text, where: needsEscape)
    }

    /// `text` for the middle of a line: as ``safe(_:)``, and line breaks and tabs escaped too. For what the server
    /// sends as one line (a masked address, a method's hint, an attribute's name): a line break in it could otherwise
    /// draw a line of the tool's own (`msal: error: …`, `Password for …`).
    package static func inline(_ text: String) -> String {
        escaped(text) { needsEscape($0) || $0 == "\n" || $0 == "\t" }
    }

    /// `text` with each scalar `escape` picks replaced by its `\uXXXX` escape.
    private static func escaped(_ text: String, where escape: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: escape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if escape(scalar) {
                let hex = String(scalar.value, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether a terminal (or a reader) could be misled by `scalar` printed as is.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false                  // newline and tab: layout the tool itself uses
        case 0x00...0x1F, 0x7F...0x9F: return true      // C0, DEL, C1
        case 0x2028, 0x2029: return true                // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional controls
        default: return false
        }
    }
}

/// swift-log to stderr, one line a message, through ``TerminalText/safe(_:)``: MSAL's diagnostics can quote
/// what a server sent.
package struct TerminalLogHandler: LogHandler {
    let label: String
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]

    package init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let details = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let timestamp = ISO8601DateFormatter().string(from: Date())
        let line = TerminalText.safe("\(timestamp) \(event.level) \(label):\(details) \(event.message)")
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Writing lines to the terminal, with control characters made visible (``TerminalText/safe(_:)``).
package enum TerminalOutput {
    /// Writes a line to stdout.
    package static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((TerminalText.safe(text) + "\n").utf8))
    }

    /// `text` on one line (line breaks become spaces).
    package static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Writes a line to stderr.
    package static func err(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.safe(text) + "\n").utf8))
    }
}
