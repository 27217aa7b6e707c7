import Foundation

/// `~` in a path a user wrote, expanded against `$HOME`, as a shell expands it. (Foundation on Linux expands it
/// against the account's home in the password database, which differs when `HOME` was set: a container, `sudo -E`,
/// a test.)
package enum HomePath {
    /// `path` with a leading `~` or `~/` replaced by `home` (when given and not empty); `~user/...` and other paths
    /// as Foundation expands them.
    package static func expand(_ path: String, home: String?) -> String {
        if let home, !home.isEmpty, path == "~" || path.hasPrefix("~/") {
            return home + path.dropFirst()
        }
        return (path as NSString).expandingTildeInPath
    }

    /// `path` expanded against this process's `HOME`.
    package static func expand(_ path: String) -> String {
        expand(path, home: ProcessInfo.processInfo.environment["HOME"])
    }
}
