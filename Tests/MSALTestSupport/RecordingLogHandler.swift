import Foundation
public import Logging

/// A swift-log handler that keeps every message with its level and metadata, for tests that read what was logged
/// (and check that no secret was).
public final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    /// One recorded message.
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let lock = NSLock()
    private var recorded: [Entry] = []
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let entry = Entry(level: event.level, message: "\(event.message)",
                          metadata: merged.mapValues { "\($0)" })
        lock.withLock { recorded.append(entry) }
    }

    /// Every message so far.
    public var entries: [Entry] { lock.withLock { recorded } }

    /// Every message as one line: `level: key=value ... message`.
    public var all: [String] {
        entries.map { entry in
            let details = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(entry.level): \(details) \(entry.message)"
        }
    }

    public var text: String { all.joined(separator: "\n") }

    /// A logger writing to a new recorder.
    public static func logger(label: String = "msal.tests") -> (Logger, RecordingLogHandler) {
        let handler = RecordingLogHandler()
        return (Logger(label: label, factory: { _ in handler }), handler)
    }
}
