import Foundation

/// The client capabilities `msal` declares: `cp1` (continuous access evaluation), unless `MSAL_CLIENT_CAPABILITIES`
/// names others (comma-separated) or none (set and empty).
enum ClientCapabilities {
    static let defaultValue = ["cp1"]

    static func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        guard let text = environment["MSAL_CLIENT_CAPABILITIES"] else { return defaultValue }
        return text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }
}
