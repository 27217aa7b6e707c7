import ArgumentParser
import Foundation
import MSAL

/// Where the CA file in use was named.
enum CAFileSource: Equatable {
    case flag, environment, profile(String), record

    /// How an error names it.
    var name: String {
        switch self {
        case .flag: return "--ca-file"
        case .environment: return "MSAL_CA_FILE"
        case .profile(let profile): return "the profile \(profile)"
        case .record: return "the sign-in record"
        }
    }
}

/// Options every command takes; each falls back to an environment variable, then to the profile of the
/// configuration file (``CLIConfigFile``), then to what the active sign-in was made with (``SignInRecords``, written
/// by `msal login`; used only when no client id and no authority is given), then to a default.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Profile of the configuration file (env MSAL_PROFILE). Default: its default_profile.", valueName: "name"))
    var profile: String?

    @Option(name: .long, help: ArgumentHelp("Tenant (id or domain) to use in place of the authority's (env MSAL_TENANT).", valueName: "tenant"))
    var tenant: String?

    @Option(name: .customLong("known-authority"),
            help: ArgumentHelp("Trust this authority too, such as an Azure AD B2C or custom-domain authority; repeatable (env MSAL_KNOWN_AUTHORITIES, comma-separated).", valueName: "url"))
    var knownAuthorities: [String] = []

    @Option(name: .long, help: ArgumentHelp("Authority URL (env MSAL_AUTHORITY).", valueName: "url"))
    var authority: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp("Application (client) id (env MSAL_CLIENT_ID). Default: the one the active sign-in used, else Microsoft's first-party public client \(ToolDefaults.publicClientId) (the Azure CLI's), which asks for {Graph}/.default.", valueName: "id"))
    var clientId: String?

    @Option(name: .long, parsing: .upToNextOption,
            help: ArgumentHelp("Scopes, several values or comma-separated (env MSAL_SCOPES). Default: User.Read; {Graph}/.default with the default client.", valueName: "scope"))
    var scopes: [String] = []

    @Option(name: .customLong("redirect-uri"), help: ArgumentHelp("Redirect URI (env MSAL_REDIRECT_URI). Default: http://localhost.", valueName: "uri"))
    var redirectUri: String?

    @Option(name: .long, help: ArgumentHelp("Unified token cache file (env MSAL_CACHE). Default: MSAL's cache file.", valueName: "file"))
    var cache: String?

    @Option(name: .long, help: ArgumentHelp("Cached account to use, by user name or home account id (env MSAL_ACCOUNT).", valueName: "username|id"))
    var account: String?

    @Option(name: .customLong("graph-endpoint"),
            help: ArgumentHelp("Microsoft Graph base URL (env MSAL_GRAPH_ENDPOINT). Default: the Graph of the authority's cloud (https://graph.microsoft.com, a national cloud's, the emulator's own).", valueName: "url"))
    var graphEndpoint: String?

    @Option(name: .customLong("ca-file"),
            help: ArgumentHelp("Also trust the certificate authorities in this PEM file, such as msal-emulator's CA (env MSAL_CA_FILE; SSL_CERT_FILE is honoured too).", valueName: "file"))
    var caFile: String?

    // `.unconditional`: `--timeout -1` is a value (refused by validate() with the allowed range), not a missing one.
    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Seconds to wait for each answer from the identity provider or Graph before giving up, a token request's retries included (env MSAL_TIMEOUT). Default: 30.", valueName: "seconds"))
    var timeout: String?

    @Flag(name: .long, help: "Sign in and get tokens through the device's identity broker (Linux: the Microsoft identity broker; env MSAL_BROKER=1). A sign-in made so keeps using it.")
    var broker = false

    @Flag(name: .long, help: "Write results as JSON (env MSAL_JSON=1).")
    var json = false

    @Flag(name: .long, help: "Log MSAL's diagnostics to stderr (env MSAL_VERBOSE=1).")
    var verbose = false

    @Flag(name: .long, help: "Also log a redacted HTTP trace and the cache decisions to stderr (env MSAL_DEBUG=1).")
    var debug = false

    static let defaultAuthority = ToolDefaults.authority

    private var environment: [String: String] { ProcessConfiguration.environment }

    private func env(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The profile in use, with its name (checked by ``validate()`` before any command runs).
    var selectedProfile: (name: String, profile: CLIProfile)? {
        try? ProcessConfiguration.loaded.get().profile(named: profile ?? env("MSAL_PROFILE"))
    }

    private var fromProfile: CLIProfile { selectedProfile?.profile ?? CLIProfile() }

    /// The flags, environment, profile and sign-in record, resolved as the credential chain resolves them.
    var settings: ToolSettings {
        var given = ToolSettings.Given.environment(environment)
        given.clientId = clientId ?? given.clientId
        given.authority = authority ?? given.authority
        given.cache = cache ?? given.cache
        given.caFile = caFile ?? given.caFile
        given.graphEndpoint = graphEndpoint ?? given.graphEndpoint
        given.account = account ?? given.account
        if !knownAuthorities.isEmpty { given.knownAuthorities = knownAuthorities }
        if broker { given.broker = true }
        return ToolSettings(given: given, profile: selectedProfile?.profile, records: ProcessConfiguration.signIns)
    }

    /// What asked for the broker when `--broker` was not given: the variable, the profile or the sign-in record.
    var brokerSource: String {
        if ToolSettings.Given.environment(environment).broker == true { return "MSAL_BROKER" }
        if fromProfile.broker == true { return "the profile \(selectedProfile?.name ?? "")" }
        return "the sign-in record"
    }

    /// The recorded sign-in these options continue (``ToolSettings/recordedSignIn``).
    var recordedSignIn: (homeAccountId: String, entry: SignInRecords.Entry)? { settings.recordedSignIn }

    /// The authority, with `--tenant` in place of its tenant.
    var resolvedAuthority: String {
        guard let tenant = resolvedTenant else { return baseAuthority }
        return Self.authority(baseAuthority, withTenant: tenant) ?? baseAuthority
    }
    /// The authority before `--tenant`: flag, environment, profile, default.
    private var baseAuthority: String { settings.authority }
    var resolvedTenant: String? { tenant ?? env("MSAL_TENANT") ?? fromProfile.tenant }
    /// The client id given (flag, environment, profile); the app-token and native commands need one.
    var resolvedClientId: String? { settings.explicitClientId }
    /// The public client that signs users in: the one given, else the recorded sign-in's, else
    /// ``ToolDefaults/publicClientId``.
    var signInClientId: String { settings.signInClientId }
    /// Whether the public client is the default first-party one, which asks for `{resource}/.default`.
    var usesDefaultClient: Bool { signInClientId == ToolDefaults.publicClientId }
    var resolvedRedirectUri: String? { redirectUri ?? env("MSAL_REDIRECT_URI") ?? fromProfile.redirectUri }
    var resolvedCache: String? { settings.cache }
    var resolvedAccount: String? { account ?? env("MSAL_ACCOUNT") }
    /// The per-request timeout in seconds (checked by ``validate()``): --timeout, MSAL_TIMEOUT, else 30.
    var resolvedTimeout: TimeInterval {
        (timeout ?? env("MSAL_TIMEOUT")).flatMap(Self.timeoutSeconds) ?? Self.defaultTimeout
    }
    static let defaultTimeout: TimeInterval = 30

    /// A timeout given as text: a number of seconds from 1 to 86400, else nil.
    static func timeoutSeconds(_ text: String) -> TimeInterval? {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 1, value <= 86_400 else {
            return nil
        }
        return value
    }
    var resolvedCAFile: String? { settings.caFile }
    /// Where ``resolvedCAFile`` comes from (as the settings resolve it); nil when there is none.
    var caFileSource: CAFileSource? {
        if caFile != nil { return .flag }
        if env("MSAL_CA_FILE") != nil { return .environment }
        if fromProfile.caFile != nil { return .profile(selectedProfile?.name ?? "") }
        return recordedSignIn?.entry.caFile != nil ? .record : nil
    }
    /// The Graph endpoint given, else the recorded sign-in's, else the Graph of the authority's cloud.
    var resolvedGraphEndpoint: String { explicitGraphEndpoint ?? ToolDefaults.graph(forAuthority: resolvedAuthority).endpoint }
    var explicitGraphEndpoint: String? { settings.explicitGraphEndpoint }
    var resolvedKnownAuthorities: [String] { settings.knownAuthorities }

    /// `authority` with its first path segment (the tenant) replaced; nil for an authority without one, or a B2C
    /// authority (whose tenant is part of its policy URL).
    static func authority(_ authority: String, withTenant tenant: String) -> String? {
        guard var components = URLComponents(string: authority), components.host != nil else { return nil }
        var segments = components.path.split(separator: "/").map(String.init)
        guard !segments.isEmpty, !["tfp", "b2c"].contains(segments[0].lowercased()),
              !segments.contains(where: { $0.lowercased().hasPrefix("b2c_1") }) else { return nil }
        segments[0] = tenant
        components.path = "/" + segments.joined(separator: "/")
        return components.string
    }
    var wantsJSON: Bool { json || Self.truthy(env("MSAL_JSON")) }
    var wantsVerbose: Bool { verbose || Self.truthy(env("MSAL_VERBOSE")) }
    var wantsDebug: Bool { debug || Self.truthy(env("MSAL_DEBUG")) }

    /// The scopes: every value split on commas and spaces. When none are given: User.Read, or with the default
    /// first-party client (which Entra grants only what it is preauthorized for) `{Graph}/.default` of the
    /// authority's cloud, as the Azure CLI asks.
    var resolvedScopes: [String] { explicitScopes ?? defaultScopes }
    var defaultScopes: [String] {
        usesDefaultClient ? [ToolDefaults.graph(forAuthority: resolvedAuthority).resource + "/.default"] : ["User.Read"]
    }

    /// The scopes given with --scopes, MSAL_SCOPES or the profile, split as ``resolvedScopes`` does; nil when none.
    var explicitScopes: [String]? {
        let given = scopes.isEmpty ? (env("MSAL_SCOPES").map { [$0] } ?? fromProfile.scopes ?? []) : scopes
        let split = given.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        return split.isEmpty ? nil : split
    }

    /// Usage errors (exit 64) that would otherwise pass silently: `--scopes ""` (no scope at all), and a Graph path
    /// taken in by `--scopes`, which reads values up to the next option (`msal graph --scopes User.Read /me`).
    func validate() throws {
        // The configuration file and the profile: a bad file or an unknown profile is a usage error before anything runs.
        do {
            _ = try ProcessConfiguration.loaded.get().profile(named: profile ?? env("MSAL_PROFILE"))
        } catch {
            throw ValidationError((error as? CLIError)?.message ?? (error as? ToolSettingsError)?.message ?? "\(error)")
        }
        if let tenant = resolvedTenant {
            guard !tenant.isEmpty, tenant.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
                throw ValidationError("--tenant takes a tenant id or domain, as in: --tenant contoso.onmicrosoft.com")
            }
            guard Self.authority(baseAuthority, withTenant: tenant) != nil else {
                throw ValidationError("--tenant cannot be applied to the authority \(baseAuthority): give the whole authority with --authority instead.")
            }
        }
        if let given = timeout ?? env("MSAL_TIMEOUT"), Self.timeoutSeconds(given) == nil {
            throw ValidationError("--timeout (or MSAL_TIMEOUT) takes a number of seconds from 1 to 86400, as in: --timeout 30")
        }
        for known in resolvedKnownAuthorities {
            guard let url = URL(string: known), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw ValidationError("--known-authority takes an authority URL, as in: --known-authority https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin")
            }
        }
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
