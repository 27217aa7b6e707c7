import Foundation
import MSALSupport
import MSAL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The active account of each application and cache: `$XDG_STATE_HOME/msal/active-accounts.json` (else
/// `~/.local/state/msal/`), a JSON object from "<client id> <cache location>" to a home account id. Written whole
/// to a temporary file created exclusively and renamed (mode 0600, `PrivateFiles`); a file that cannot be read
/// counts as empty, so that it never stops a command — it only names a preference.
struct ActiveAccountStore {
    let file: URL

    static let maximumSize = 1 << 20

    init(environment: [String: String]) {
        file = ToolDefaults.stateDirectory(environment: environment).appendingPathComponent("active-accounts.json")
    }

    static func key(clientId: String, cache: String) -> String { "\(clientId) \(cache)" }

    /// The home account id stored under `key`.
    func active(for key: String) -> String? {
        entries()[key]
    }

    /// Stores (or with nil removes) the active account under `key`.
    func setActive(_ homeAccountId: String?, for key: String) throws {
        var all = entries()
        all[key] = homeAccountId
        do {
            let data = try JSONSerialization.data(withJSONObject: all, options: [.sortedKeys])
            try PrivateFiles.replace(file.path, with: data, mode: 0o600)
        } catch {
            throw CLIError(message: "Cannot record the active account in \(file.path).")
        }
    }

    private func entries() -> [String: String] {
        guard let data = try? OutsideFile.read(file.path, limit: Self.maximumSize),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object.compactMapValues { $0 as? String }
    }
}
