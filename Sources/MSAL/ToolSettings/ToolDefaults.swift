import Foundation
import MSALSupport

/// The defaults of the `msal` tool, shared with the credential chain's msal-account step.
package enum ToolDefaults {
    /// The public client used when none is configured: Microsoft's first-party client that the Azure CLI and
    /// azure-identity's interactive credentials use. Entra grants it only what it is preauthorized for, so its
    /// scopes are `{resource}/.default` (an individual scope fails with AADSTS65002).
    package static let publicClientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    package static let authority = "https://login.microsoftonline.com/common"

    /// The tool's state directory: `$XDG_STATE_HOME/msal` (an absolute path), else `~/.local/state/msal`.
    package static func stateDirectory(environment: [String: String]) -> URL {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        return URL(fileURLWithPath: base).appendingPathComponent("msal")
    }

    /// The certificate authorities of the CA file at `path` (`~` against `home`), as PEM text: at most 1 MiB, with
    /// at least one certificate block; nil when it cannot be read as such.
    package static func trustRootsPEM(at path: String, home: String?) -> (path: String, pem: String?) {
        let file = URL(fileURLWithPath: HomePath.expand(path, home: home)).path
        guard let data = try? OutsideFile.read(file, limit: 1 << 20),
              let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN CERTIFICATE-----") else {
            return (file, nil)
        }
        return (file, pem)
    }

    /// The client capabilities the tool declares: `cp1` (continuous access evaluation), unless
    /// `MSAL_CLIENT_CAPABILITIES` names others (comma-separated) or none (set and empty). Tokens are cached per
    /// capability set, so whatever reads the tool's cache declares the same.
    package static func clientCapabilities(environment: [String: String]) -> [String] {
        guard let text = environment["MSAL_CLIENT_CAPABILITIES"] else { return ["cp1"] }
        return text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// Whether `host` (lowercased, as `URL.host` gives it) is this machine's loopback address, where the emulator
    /// serves.
    package static func isLoopback(_ host: String) -> Bool {
        ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
    }

    /// Microsoft Graph for the cloud of `authority`: the base URL requests go to and the resource URI scopes name.
    /// The national clouds have their own Graph hosts; an authority on a loopback address (the emulator) serves its
    /// Graph at its own origin, under Graph's resource URI.
    package static func graph(forAuthority authority: String) -> (endpoint: String, resource: String) {
        let global = "https://graph.microsoft.com"
        guard let url = URL(string: authority), let host = url.host?.lowercased() else { return (global, global) }
        switch host {
        case "login.microsoftonline.us", "login.usgovcloudapi.net":
            return ("https://graph.microsoft.us", "https://graph.microsoft.us")
        case "login.chinacloudapi.cn", "login.partner.microsoftonline.cn":
            return ("https://microsoftgraph.chinacloudapi.cn", "https://microsoftgraph.chinacloudapi.cn")
        case "login.microsoftonline.de":
            return ("https://graph.microsoft.de", "https://graph.microsoft.de")
        case _ where isLoopback(host):
            var origin = URLComponents()
            origin.scheme = url.scheme
            origin.host = url.host
            origin.port = url.port
            return (origin.string ?? global, global)
        default:
            return (global, global)
        }
    }
}
