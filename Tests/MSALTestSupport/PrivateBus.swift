#if os(Linux)
public import Foundation
import Glibc

/// A private session bus for one test: `dbus-daemon` on a socket in a scratch directory, starting no service on demand.
public final class PrivateBus: @unchecked Sendable {
    let process = Process()
    /// The bus's address (`unix:path=...`).
    public let address: String
    /// The scratch directory the bus socket is in.
    public let directory: URL

    /// Whether the tests must run (the test command installs dbus); otherwise they are skipped without it.
    public static var required: Bool { ProcessInfo.processInfo.environment["MSAL_DBUS_REQUIRED"] == "1" }
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") }

    public init() async throws {
        directory = ScratchDirectory.path("private-bus")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // A session bus with no service directory: nothing is started on demand (the stock session configuration
        // would start a Secret Service when libsecret asks for one, and clients would wait on it).
        let services = directory.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("session.conf")
        try Data("""
            <busconfig>
              <type>session</type>
              <keep_umask/>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(services.path)</servicedir>
              <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """.utf8).write(to: config)
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--nopidfile"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        address = "unix:path=\(socket)"
        try await eventually(within: 10, "the bus to accept connections") { Self.accepts(socket) }
    }

    /// Whether a Unix socket at `path` accepts a connection (the daemon binds before it listens: the file alone
    /// is not enough).
    static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Ends the daemon (SIGKILL: dbus-daemon keeps running on SIGTERM; Foundation reaps it). No wait:
    /// `waitUntilExit` spins on a run loop that a test task does not run.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
#endif
