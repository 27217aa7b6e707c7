import ArgumentParser
import Foundation

/// Options every command takes; each falls back to an environment variable.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Authority URL (env MSAL_AUTHORITY).", valueName: "url"))
    var authority: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp("Application (client) id (env MSAL_CLIENT_ID).", valueName: "id"))
    var clientId: String?

    @Option(name: .long, parsing: .upToNextOption,
            help: ArgumentHelp("Scopes, several values or comma-separated (env MSAL_SCOPES). Default: User.Read.", valueName: "scope"))
    var scopes: [String] = []

    @Option(name: .customLong("redirect-uri"), help: ArgumentHelp("Redirect URI (env MSAL_REDIRECT_URI). Default: http://localhost.", valueName: "uri"))
    var redirectUri: String?

    @Option(name: .long, help: ArgumentHelp("Unified token cache file (env MSAL_CACHE). Default: MSAL's cache file.", valueName: "file"))
    var cache: String?

    @Option(name: .long, help: ArgumentHelp("Cached account to use, by user name or home account id (env MSAL_ACCOUNT).", valueName: "username|id"))
    var account: String?

    @Option(name: .customLong("graph-endpoint"),
            help: ArgumentHelp("Microsoft Graph base URL (env MSAL_GRAPH_ENDPOINT). Default: https://graph.microsoft.com.", valueName: "url"))
    var graphEndpoint: String?

    @Option(name: .customLong("ca-file"),
            help: ArgumentHelp("Also trust the certificate authorities in this PEM file, such as msal-emulator's CA (env MSAL_CA_FILE; SSL_CERT_FILE is honoured too).", valueName: "file"))
    var caFile: String?

    @Flag(name: .long, help: "Write results as JSON (env MSAL_JSON=1).")
    var json = false

    @Flag(name: .long, help: "Log MSAL's diagnostics to stderr (env MSAL_VERBOSE=1).")
    var verbose = false

    @Flag(name: .long, help: "Also log a redacted HTTP trace and the cache decisions to stderr (env MSAL_DEBUG=1).")
    var debug = false

    static let defaultAuthority = "https://login.microsoftonline.com/common"
    static let defaultGraphEndpoint = "https://graph.microsoft.com"

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    private func env(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    var resolvedAuthority: String { authority ?? env("MSAL_AUTHORITY") ?? Self.defaultAuthority }
    var resolvedClientId: String? { clientId ?? env("MSAL_CLIENT_ID") }
    var resolvedRedirectUri: String? { redirectUri ?? env("MSAL_REDIRECT_URI") }
    var resolvedCache: String? { cache ?? env("MSAL_CACHE") }
    var resolvedAccount: String? { account ?? env("MSAL_ACCOUNT") }
    var resolvedCAFile: String? { caFile ?? env("MSAL_CA_FILE") }
    var resolvedGraphEndpoint: String { graphEndpoint ?? env("MSAL_GRAPH_ENDPOINT") ?? Self.defaultGraphEndpoint }
    var wantsJSON: Bool { json || Self.truthy(env("MSAL_JSON")) }
    var wantsVerbose: Bool { verbose || Self.truthy(env("MSAL_VERBOSE")) }
    var wantsDebug: Bool { debug || Self.truthy(env("MSAL_DEBUG")) }

    /// The scopes: every value split on commas and spaces; User.Read when none are given.
    var resolvedScopes: [String] { explicitScopes ?? ["User.Read"] }

    /// The scopes given with --scopes or MSAL_SCOPES, split as ``resolvedScopes`` does; nil when none.
    var explicitScopes: [String]? {
        let given = scopes.isEmpty ? (env("MSAL_SCOPES").map { [$0] } ?? []) : scopes
        let split = given.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        return split.isEmpty ? nil : split
    }

    /// Usage errors (exit 64) that would otherwise pass silently: `--scopes ""` (no scope at all), and a Graph path
    /// taken in by `--scopes`, which reads values up to the next option (`msal graph --scopes User.Read /me`).
    func validate() throws {
        guard !scopes.isEmpty else { return }
        let split = scopes.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        if split.isEmpty {
            throw ValidationError("--scopes names no scope. Name at least one, as in: --scopes User.Read")
        }
        if let path = split.first(where: { $0.hasPrefix("/") }) {
            throw ValidationError("'\(path)' is a resource path, not a scope: --scopes takes every value up to the next "
                                  + "option. Put the path first, as in: msal graph \(path) --scopes \(split.filter { !$0.hasPrefix("/") }.joined(separator: " "))")
        }
    }

    private static func truthy(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return ["1", "true", "yes", "on"].contains(value)
    }
}
