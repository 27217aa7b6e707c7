import Foundation
import MSALSupport

/// The settings the `msal` tool signs in and gets tokens with, resolved one way for the tool and for the credential
/// chain's msal-account step: what is given (flags, then environment variables), then the profile of the
/// configuration file (``CLIConfigFile``), then the active sign-in's record (``SignInRecords``: only when neither a
/// client id nor an authority is given, so that a record is never mixed with other settings), then the defaults
/// (``ToolDefaults``).
package struct ToolSettings: Sendable {
    /// What the caller was given, flags before environment variables.
    package struct Given: Sendable {
        package var clientId: String?
        package var authority: String?
        package var cache: String?
        package var caFile: String?
        package var graphEndpoint: String?
        package var account: String?
        package var knownAuthorities: [String]?
        /// Sign in through the device's identity broker (`--broker`, `MSAL_BROKER=1`).
        package var broker: Bool?

        package init(clientId: String? = nil, authority: String? = nil, cache: String? = nil, caFile: String? = nil,
                     graphEndpoint: String? = nil, account: String? = nil, knownAuthorities: [String]? = nil,
                     broker: Bool? = nil) {
            self.broker = broker
            self.clientId = clientId
            self.authority = authority
            self.cache = cache
            self.caFile = caFile
            self.graphEndpoint = graphEndpoint
            self.account = account
            self.knownAuthorities = knownAuthorities
        }

        /// The environment variables the tool reads (MSAL_CLIENT_ID, MSAL_AUTHORITY, MSAL_CACHE, MSAL_CA_FILE,
        /// MSAL_GRAPH_ENDPOINT, MSAL_ACCOUNT, MSAL_KNOWN_AUTHORITIES); empty values count as unset.
        package static func environment(_ environment: [String: String]) -> Given {
            func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            return Given(clientId: value("MSAL_CLIENT_ID"), authority: value("MSAL_AUTHORITY"), cache: value("MSAL_CACHE"),
                         caFile: value("MSAL_CA_FILE"), graphEndpoint: value("MSAL_GRAPH_ENDPOINT"),
                         account: value("MSAL_ACCOUNT"),
                         knownAuthorities: value("MSAL_KNOWN_AUTHORITIES").map {
                             $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                         }, broker: value("MSAL_BROKER").map { ["1", "true", "yes"].contains($0.lowercased()) })
        }
    }

    package let given: Given
    package let profile: CLIProfile
    package let records: SignInRecords

    package init(given: Given, profile: CLIProfile?, records: SignInRecords) {
        self.given = given
        self.profile = profile ?? CLIProfile()
        self.records = records
    }

    /// The client id given or in the profile (the confidential and native commands need one of their own).
    package var explicitClientId: String? { given.clientId ?? profile.clientId }

    /// The recorded sign-in these settings continue: the one ``Given/account`` names, else the active one.
    package var recordedSignIn: (homeAccountId: String, entry: SignInRecords.Entry)? {
        guard explicitClientId == nil, given.authority == nil, profile.authority == nil else { return nil }
        return records.entry(named: given.account)
    }
    private var recorded: SignInRecords.Entry? { recordedSignIn?.entry }

    /// The public client that signs users in: the one given, else the record's, else ``ToolDefaults/publicClientId``.
    package var signInClientId: String { explicitClientId ?? recorded?.clientId ?? ToolDefaults.publicClientId }
    package var authority: String { given.authority ?? profile.authority ?? recorded?.authority ?? ToolDefaults.authority }
    package var cache: String? { given.cache ?? profile.cache ?? recorded?.cache }
    package var caFile: String? { given.caFile ?? profile.caFile ?? recorded?.caFile }
    package var explicitGraphEndpoint: String? { given.graphEndpoint ?? profile.graphEndpoint ?? recorded?.graphEndpoint }
    package var knownAuthorities: [String] { given.knownAuthorities ?? profile.knownAuthorities ?? recorded?.knownAuthorities ?? [] }
    /// Whether to sign in and get tokens through the device's identity broker: given, in the profile, or how the
    /// recorded sign-in was made. Default false.
    package var usesBroker: Bool { given.broker ?? profile.broker ?? recorded?.broker ?? false }

    /// The settings of `environment` alone, as the credential chain sees them: its configuration file's profile
    /// (MSAL_PROFILE, else the default one) and its sign-in records. A configuration file that cannot be used is an
    /// error; records that cannot be read count as none.
    package static func fromEnvironment(_ environment: [String: String]) throws(ToolSettingsError) -> ToolSettings {
        let file = try CLIConfigFile.load(CLIConfigFile.location(environment: environment))
        let name = environment["MSAL_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let profile = try file.profile(named: name)?.profile
        return ToolSettings(given: .environment(environment), profile: profile,
                            records: SignInRecords.load(SignInRecords.location(environment: environment)))
    }
}
