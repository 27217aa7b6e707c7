import Foundation
import MSALSupport

/// A configuration file or sign-in record of the `msal` tool that cannot be used; the message names the file and
/// the field. The tool reports it as a usage error; the credential chain skips its msal-account step with it.
package struct ToolSettingsError: Error, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

/// One named profile of the configuration file: defaults for the common options.
package struct CLIProfile: Sendable, Equatable {
    package var clientId: String?
    package var authority: String?
    package var tenant: String?
    package var scopes: [String]?
    package var cache: String?
    package var redirectUri: String?
    package var graphEndpoint: String?
    package var caFile: String?
    package var knownAuthorities: [String]?
    /// Sign in through the device's identity broker (`"broker": true`).
    package var broker: Bool?

    package init(clientId: String? = nil, authority: String? = nil, tenant: String? = nil, scopes: [String]? = nil,
                 cache: String? = nil, redirectUri: String? = nil, graphEndpoint: String? = nil, caFile: String? = nil,
                 knownAuthorities: [String]? = nil, broker: Bool? = nil) {
        self.broker = broker
        self.clientId = clientId
        self.authority = authority
        self.tenant = tenant
        self.scopes = scopes
        self.cache = cache
        self.redirectUri = redirectUri
        self.graphEndpoint = graphEndpoint
        self.caFile = caFile
        self.knownAuthorities = knownAuthorities
    }
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
package struct CLIConfigFile: Sendable, Equatable {
    package var defaultProfile: String?
    package var profiles: [String: CLIProfile]

    package static let empty = CLIConfigFile(defaultProfile: nil, profiles: [:])
    package static let maximumSize = 1 << 20
    package static let profileFields: Set<String> = ["client_id", "authority", "tenant", "scopes", "cache", "redirect_uri",
                                             "graph_endpoint", "ca_file", "known_authorities", "broker"]

    /// Where the file is for `environment`.
    package static func location(environment: [String: String]) -> URL {
        if let explicit = environment["MSAL_CONFIG"], !explicit.isEmpty {
            return URL(fileURLWithPath: HomePath.expand(explicit, home: environment["HOME"]))
        }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return URL(fileURLWithPath: base).appendingPathComponent("msal").appendingPathComponent("config.json")
    }

    /// Reads `file`; a missing file is an empty configuration.
    package static func load(_ file: URL) throws(ToolSettingsError) -> CLIConfigFile {
        let data: Data
        do {
            data = try OutsideFile.read(file.path, limit: maximumSize)
        } catch .absent {
            return .empty
        } catch .tooLarge {
            throw ToolSettingsError("The configuration file \(file.path) is larger than 1 MiB.")
        } catch {
            throw ToolSettingsError("The configuration file \(file.path) cannot be read (\(error)).")
        }
        return try parse(data, file: file.path)
    }

    /// Parses the file's bytes; every error names the file and the field.
    package static func parse(_ data: Data, file: String) throws(ToolSettingsError) -> CLIConfigFile {
        func fail(_ message: String) -> ToolSettingsError {
            ToolSettingsError("The configuration file \(file): \(message)")
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

    private static func profile(_ fields: [String: Any], name: String, fail: (String) -> ToolSettingsError) throws(ToolSettingsError) -> CLIProfile {
        for key in fields.keys where !profileFields.contains(key) {
            throw fail("profile \"\(name)\" has an unknown field \"\(key)\" (expected \(profileFields.sorted().joined(separator: ", "))).")
        }
        func string(_ key: String) throws(ToolSettingsError) -> String? {
            guard let value = fields[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else { throw fail("\(name).\(key) must be a non-empty string.") }
            return text
        }
        func list(_ key: String) throws(ToolSettingsError) -> [String]? {
            guard let value = fields[key] else { return nil }
            if let text = value as? String {
                return text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            }
            guard let items = value as? [Any], let texts = items as? [String], !texts.contains(where: \.isEmpty) else {
                throw fail("\(name).\(key) must be a list of strings.")
            }
            return texts
        }
        var broker: Bool?
        if let value = fields["broker"] {
            guard let flag = value as? Bool else {
                throw fail("\(name).broker must be true or false.")
            }
            broker = flag
        }
        return CLIProfile(clientId: try string("client_id"), authority: try string("authority"), tenant: try string("tenant"),
                          scopes: try list("scopes"), cache: try string("cache"), redirectUri: try string("redirect_uri"),
                          graphEndpoint: try string("graph_endpoint"), caFile: try string("ca_file"),
                          knownAuthorities: try list("known_authorities"), broker: broker)
    }

    /// The profile named `name`, else the default one; nil when the file has none to offer.
    package func profile(named name: String?) throws(ToolSettingsError) -> (name: String, profile: CLIProfile)? {
        if let name {
            guard let profile = profiles[name] else {
                let known = profiles.keys.sorted()
                throw ToolSettingsError("No profile \"\(name)\" in the configuration file"
                                        + (known.isEmpty ? " (it has none)." : "; its profiles: \(known.joined(separator: ", "))."))
            }
            return (name, profile)
        }
        if let fallback = defaultProfile ?? (profiles["default"] != nil ? "default" : nil), let profile = profiles[fallback] {
            return (fallback, profile)
        }
        return nil
    }
}
