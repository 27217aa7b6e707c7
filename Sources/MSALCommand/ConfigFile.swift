import Foundation
import MSALSupport

/// One named profile of the configuration file: defaults for the common options.
struct CLIProfile: Sendable, Equatable {
    var clientId: String?
    var authority: String?
    var tenant: String?
    var scopes: [String]?
    var cache: String?
    var redirectUri: String?
    var graphEndpoint: String?
    var caFile: String?
    var knownAuthorities: [String]?
}

/// The configuration file `$XDG_CONFIG_HOME/msal/config.json` (else `~/.config/msal/config.json`; `MSAL_CONFIG`
/// names another): named profiles and the default one.
///
/// ```json
/// {
///   "default_profile": "work",
///   "profiles": {
///     "work": { "client_id": "…", "authority": "https://login.microsoftonline.com/organizations",
///               "scopes": ["User.Read", "Mail.Read"], "cache": "~/.cache/msal-work.json" }
///   }
/// }
/// ```
///
/// Fields of a profile: client_id, authority, tenant, scopes (a list or one comma-separated string), cache,
/// redirect_uri, graph_endpoint, ca_file, known_authorities (a list). Unknown fields are refused, so that a typo
/// is not silently ignored.
struct CLIConfigFile: Sendable, Equatable {
    var defaultProfile: String?
    var profiles: [String: CLIProfile]

    static let empty = CLIConfigFile(defaultProfile: nil, profiles: [:])
    static let maximumSize = 1 << 20
    static let profileFields: Set<String> = ["client_id", "authority", "tenant", "scopes", "cache", "redirect_uri",
                                             "graph_endpoint", "ca_file", "known_authorities"]

    /// Where the file is for `environment`.
    static func location(environment: [String: String]) -> URL {
        if let explicit = environment["MSAL_CONFIG"], !explicit.isEmpty {
            return URL(fileURLWithPath: HomePath.expand(explicit, home: environment["HOME"]))
        }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return URL(fileURLWithPath: base).appendingPathComponent("msal").appendingPathComponent("config.json")
    }

    /// Reads `file`; a missing file is an empty configuration.
    static func load(_ file: URL) throws(CLIError) -> CLIConfigFile {
        let data: Data
        do {
            data = try OutsideFile.read(file.path, limit: maximumSize)
        } catch .absent {
            return .empty
        } catch .tooLarge {
            throw CLIError(message: "The configuration file \(file.path) is larger than 1 MiB.", exitCode: CLIExit.usage)
        } catch {
            throw CLIError(message: "The configuration file \(file.path) cannot be read (\(error)).", exitCode: CLIExit.usage)
        }
        return try parse(data, file: file.path)
    }

    /// Parses the file's bytes; every error names the file and the field.
    static func parse(_ data: Data, file: String) throws(CLIError) -> CLIConfigFile {
        func fail(_ message: String) -> CLIError {
            CLIError(message: "The configuration file \(file): \(message)", exitCode: CLIExit.usage)
        }
        guard let json = try? JSONSerialization.jsonObject(with: data), let root = json as? [String: Any] else {
            throw fail("not a JSON object.")
        }
        for key in root.keys where !["default_profile", "profiles"].contains(key) {
            throw fail("unknown field \"\(key)\" (expected default_profile, profiles).")
        }
        var config = CLIConfigFile.empty
        if let value = root["default_profile"] {
            guard let name = value as? String else { throw fail("default_profile must be a string.") }
            config.defaultProfile = name
        }
        if let value = root["profiles"] {
            guard let profiles = value as? [String: Any] else { throw fail("profiles must be an object of named profiles.") }
            for (name, body) in profiles {
                guard let fields = body as? [String: Any] else { throw fail("profile \"\(name)\" must be an object.") }
                config.profiles[name] = try profile(fields, name: name, fail: fail)
            }
        }
        if let name = config.defaultProfile, config.profiles[name] == nil {
            throw fail("default_profile names \"\(name)\", which is not among the profiles.")
        }
        return config
    }

    private static func profile(_ fields: [String: Any], name: String, fail: (String) -> CLIError) throws(CLIError) -> CLIProfile {
        for key in fields.keys where !profileFields.contains(key) {
            throw fail("profile \"\(name)\" has an unknown field \"\(key)\" (expected \(profileFields.sorted().joined(separator: ", "))).")
        }
        func string(_ key: String) throws(CLIError) -> String? {
            guard let value = fields[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else { throw fail("\(name).\(key) must be a non-empty string.") }
            return text
        }
        func list(_ key: String) throws(CLIError) -> [String]? {
            guard let value = fields[key] else { return nil }
            if let text = value as? String {
                return text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            }
            guard let items = value as? [Any], let texts = items as? [String], !texts.contains(where: \.isEmpty) else {
                throw fail("\(name).\(key) must be a list of strings.")
            }
            return texts
        }
        return CLIProfile(clientId: try string("client_id"), authority: try string("authority"), tenant: try string("tenant"),
                          scopes: try list("scopes"), cache: try string("cache"), redirectUri: try string("redirect_uri"),
                          graphEndpoint: try string("graph_endpoint"), caFile: try string("ca_file"),
                          knownAuthorities: try list("known_authorities"))
    }

    /// The profile named `name`, else the default one; nil when the file has none to offer.
    func profile(named name: String?) throws(CLIError) -> (name: String, profile: CLIProfile)? {
        if let name {
            guard let profile = profiles[name] else {
                let known = profiles.keys.sorted()
                throw CLIError(message: "No profile \"\(name)\" in the configuration file"
                               + (known.isEmpty ? " (it has none)." : "; its profiles: \(known.joined(separator: ", "))."),
                               exitCode: CLIExit.usage)
            }
            return (name, profile)
        }
        if let fallback = defaultProfile ?? (profiles["default"] != nil ? "default" : nil), let profile = profiles[fallback] {
            return (fallback, profile)
        }
        return nil
    }
}

/// The configuration file of this process, read once.
enum ProcessConfiguration {
    static let environment = ProcessInfo.processInfo.environment
    static let file = CLIConfigFile.location(environment: environment)
    static let loaded: Result<CLIConfigFile, CLIError> = Result { () throws(CLIError) in try CLIConfigFile.load(file) }
}
