public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory every scratch directory of one test process lives in, under the system's temporary directory, and
/// removed when the process exits: test runs leave nothing behind in `/tmp`.
public enum ScratchDirectory {
    /// A new directory path (not created) named `prefix-<uuid>` inside the process's scratch root.
    public static func path(_ prefix: String) -> URL {
        root.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    }

    /// The process's scratch root, created (mode 0700) on first use; its removal is registered with `atexit`.
    public static let root: URL = {
        let url = URL(fileURLWithPath: scratchRootPath, isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        atexit { try? FileManager.default.removeItem(atPath: scratchRootPath) }
        return url
    }()
}

private let scratchRootPath = FileManager.default.temporaryDirectory
    .appendingPathComponent("msal-tests-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true).path
