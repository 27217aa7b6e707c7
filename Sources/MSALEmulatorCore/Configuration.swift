public import Foundation

/// The whole description of an emulated identity platform: tenants, users, app registrations, APIs,
/// token lifetimes and injected faults.
///
/// Start from ``EmulatorConfiguration/default`` (a ready demo set-up), load a JSON file with
/// ``EmulatorConfiguration/load(contentsOf:)``, or build one with ``EmulatorConfigurationBuilder``.
/// Every field of the JSON form is optional; missing fields take the default configuration's value.
public struct EmulatorConfiguration: Codable, Sendable, Equatable {
    /// Directory tenants (organisations, the personal-account tenant, Azure AD B2C tenants).
    public var tenants: [EmulatedTenant]
    /// Users who can sign in.
    public var users: [EmulatedUser]
    /// App registrations (public and confidential clients).
    public var applications: [EmulatedApplication]
    /// Protected APIs (resources) and their delegated scopes; Microsoft Graph is one of them.
    public var apis: [EmulatedAPI]
    /// Lifetimes of codes and tokens.
    public var lifetimes: TokenLifetimes
    /// Faults injected into endpoints (for reliability tests).
    public var faults: [FaultRule]
    /// **Emulator-only feature.** When set to a username, `authorize` and device-code sign-ins are
    /// approved for that user at once, with no page and no consent prompt (for unattended demos and tests).
    public var autoApproveUsername: String?
    /// The TCP port of the HTTPS listener (0 picks a free port).
    public var httpsPort: Int
    /// The TCP port of the plain-HTTP listener (0 picks a free port).
    public var httpPort: Int
    /// The tenant, app and user the ``EmulatorConfiguration/default`` set-up advertises to clients.
    public var defaults: Defaults
    /// Whether a client assertion whose `jti` was already accepted for the same app is refused until it expires
    /// (default `false`, as Entra ID: MSAL for Python reuses one signed assertion for up to nine minutes). Set
    /// `true` to check that a client makes a fresh assertion for every request.
    public var rejectsReplayedClientAssertions: Bool
    /// Azure managed identities the emulator serves tokens for (App Service, IMDS and Azure Arc endpoints).
    public var managedIdentities: [EmulatedManagedIdentity]
    /// The secret App Service puts in `IDENTITY_HEADER`, which every request to `/msi/token` must repeat in
    /// `X-IDENTITY-HEADER`. `nil`: a random value made at start (``IdentityEmulator/identityHeader``).
    public var identityHeader: String?
    /// Where the Azure Arc endpoint writes its challenge key files (created with mode 0700 when missing).
    /// `nil`: a new temporary directory made at start (``IdentityEmulator/arcTokenDirectory``).
    public var arcTokenDirectory: String?
    /// How the External ID tenants' native authentication behaves (sign-up attributes, password policy, password
    /// reset polling).
    public var nativeAuth: NativeAuthSettings = NativeAuthSettings()
    /// How the token endpoint answers a proof-of-possession request (`token_type=pop`, `req_cnf`): as Entra does by
    /// default, or with one of the faults clients must refuse.
    public var proofOfPossession: EmulatedPoPBehaviour = .entra
    /// Whether Graph takes a signed request only with a nonce it issued: one without gets a 401 with
    /// `WWW-Authenticate: PoP nonce="…"` (valid 5 minutes), as resources that issue server nonces answer. Default false.
    public var requiresPoPServerNonce = false
    /// How the emulated identity broker binds a proof-of-possession token (`popParams`): to its own key with a signed
    /// request in the answer, as Microsoft's broker does by default, or one of the other forms brokers answer.
    public var brokerProofOfPossession: EmulatedBrokerPoP = .brokerKey

    /// What clients should use when they have no other configuration.
    public struct Defaults: Codable, Sendable, Equatable {
        /// Tenant domain or GUID used in authorities.
        public var tenant: String
        /// Client id of the default public-client app.
        public var clientId: String
        /// Username of the default user.
        public var username: String
        /// Scopes that the default app asks for.
        public var scopes: [String]
        /// Creates defaults.
        public init(tenant: String, clientId: String, username: String, scopes: [String]) {
            self.tenant = tenant
            self.clientId = clientId
            self.username = username
            self.scopes = scopes
        }
    }

    /// Creates a configuration from its parts.
    public init(
        tenants: [EmulatedTenant], users: [EmulatedUser], applications: [EmulatedApplication], apis: [EmulatedAPI],
        lifetimes: TokenLifetimes = TokenLifetimes(), faults: [FaultRule] = [], autoApproveUsername: String? = nil,
        httpsPort: Int = 0, httpPort: Int = 0, defaults: Defaults, rejectsReplayedClientAssertions: Bool = false,
        managedIdentities: [EmulatedManagedIdentity] = [], identityHeader: String? = nil, arcTokenDirectory: String? = nil
    ) {
        self.tenants = tenants
        self.users = users
        self.applications = applications
        self.apis = apis
        self.lifetimes = lifetimes
        self.faults = faults
        self.autoApproveUsername = autoApproveUsername
        self.httpsPort = httpsPort
        self.httpPort = httpPort
        self.defaults = defaults
        self.rejectsReplayedClientAssertions = rejectsReplayedClientAssertions
        self.managedIdentities = managedIdentities
        self.identityHeader = identityHeader
        self.arcTokenDirectory = arcTokenDirectory
    }

    enum CodingKeys: String, CodingKey {
        case tenants, users, applications, apis, lifetimes, faults, autoApproveUsername, httpsPort, httpPort, defaults
        case rejectsReplayedClientAssertions, managedIdentities, identityHeader, arcTokenDirectory, nativeAuth
        case proofOfPossession, requiresPoPServerNonce, brokerProofOfPossession
    }

    /// Decodes a configuration; absent fields keep the values of ``EmulatorConfiguration/default``.
    public init(from decoder: any Decoder) throws {
        let base = EmulatorConfiguration.default
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tenants = try c.decodeIfPresent([EmulatedTenant].self, forKey: .tenants) ?? base.tenants
        users = try c.decodeIfPresent([EmulatedUser].self, forKey: .users) ?? base.users
        applications = try c.decodeIfPresent([EmulatedApplication].self, forKey: .applications) ?? base.applications
        apis = try c.decodeIfPresent([EmulatedAPI].self, forKey: .apis) ?? base.apis
        lifetimes = try c.decodeIfPresent(TokenLifetimes.self, forKey: .lifetimes) ?? base.lifetimes
        faults = try c.decodeIfPresent([FaultRule].self, forKey: .faults) ?? []
        autoApproveUsername = try c.decodeIfPresent(String.self, forKey: .autoApproveUsername)
        httpsPort = try c.decodeIfPresent(Int.self, forKey: .httpsPort) ?? 0
        httpPort = try c.decodeIfPresent(Int.self, forKey: .httpPort) ?? 0
        defaults = try c.decodeIfPresent(Defaults.self, forKey: .defaults) ?? base.defaults
        rejectsReplayedClientAssertions = try c.decodeIfPresent(Bool.self, forKey: .rejectsReplayedClientAssertions) ?? false
        managedIdentities = try c.decodeIfPresent([EmulatedManagedIdentity].self, forKey: .managedIdentities) ?? base.managedIdentities
        identityHeader = try c.decodeIfPresent(String.self, forKey: .identityHeader)
        arcTokenDirectory = try c.decodeIfPresent(String.self, forKey: .arcTokenDirectory)
        nativeAuth = try c.decodeIfPresent(NativeAuthSettings.self, forKey: .nativeAuth) ?? NativeAuthSettings()
        proofOfPossession = try c.decodeIfPresent(EmulatedPoPBehaviour.self, forKey: .proofOfPossession) ?? .entra
        requiresPoPServerNonce = try c.decodeIfPresent(Bool.self, forKey: .requiresPoPServerNonce) ?? false
        brokerProofOfPossession = try c.decodeIfPresent(EmulatedBrokerPoP.self, forKey: .brokerProofOfPossession) ?? .brokerKey
    }

    /// The user whose user name or mail is `name` (any case).
    package func user(named name: String) -> EmulatedUser? {
        let lower = name.lowercased()
        return users.first { $0.username.lowercased() == lower || ($0.mail?.lowercased() == lower) }
    }

    /// Loads a JSON configuration file.
    ///
    /// - Throws: ``EmulatorStartError`` naming the file and, for a file that does not describe a configuration, the
    ///   field and what was expected there.
    public static func load(contentsOf url: URL) throws -> EmulatorConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "it cannot be read" : "there is no such file"
            throw EmulatorStartError(message: "Cannot read the configuration file \(url.path): \(reason).")
        }
        do {
            return try JSONDecoder().decode(EmulatorConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw EmulatorStartError(message: "The configuration file \(url.path) is not valid: \(describe(error))")
        }
    }

    /// Which field of a configuration file is wrong, and what was expected there.
    static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String {
            let names = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "the top level" : "'" + names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(field(context.codingPath + [key])) is missing."
        case .typeMismatch(let type, let context):
            return "\(field(context.codingPath)) should be \(expected(type))."
        case .valueNotFound(let type, let context):
            return "\(field(context.codingPath)) is null; it should be \(expected(type))."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON." : "\(field(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "it does not describe an emulator configuration."
        }
    }

    private static func expected(_ type: Any.Type) -> String {
        switch "\(type)" {
        case "String": return "a string"
        case let name where name.hasPrefix("Int") || name == "Double": return "a number"
        case "Bool": return "true or false"
        case let name where name.hasPrefix("Array"): return "an array"
        case let name where name.hasPrefix("Dictionary"): return "an object"
        default: return "an object of the documented form"
        }
    }
}

/// An app registration.
public struct EmulatedApplication: Codable, Sendable, Equatable {
    /// Application (client) id.
    public var clientId: String
    /// Display name shown on the consent page.
    public var displayName: String
    /// Whether this is a public client (no secret; PKCE required for the authorization code flow).
    public var isPublicClient: Bool
    /// Client secret for confidential clients.
    public var clientSecret: String?
    /// Registered redirect URIs. `http://localhost` and `http://127.0.0.1` match any port, as in Entra.
    public var redirectURIs: [String]
    /// Scopes granted without a consent prompt (full names, e.g. `https://graph.microsoft.com/User.Read`).
    /// For a middle-tier API these are also the downstream scopes it may ask for on behalf of a user.
    public var preConsentedScopes: [String]
    /// Family of client ids (FOCI) whose members share refresh tokens, e.g. `"1"`.
    public var familyId: String?
    /// PEM X.509 certificates registered as client credentials: a confidential client may authenticate with a
    /// client assertion signed by the private key of one of them (named by its `x5t#S256` or `x5t` thumbprint).
    public var certificates: [String]
    /// App roles granted to the app itself (admin-consented application permissions), as full names
    /// `"{resource}/{Role}"`, e.g. `"https://graph.microsoft.com/User.Read.All"`; they become the `roles` of the
    /// tokens the client credentials grant issues.
    public var applicationPermissions: [String]
    /// Federated identity credentials (workload identity federation): a client assertion that is a token of one
    /// of these issuers, for one of these subjects and audiences, authenticates the app.
    public var federatedCredentials: [FederatedCredential]
    /// Whether the app may use native authentication (the `initiate` / `challenge` / `continue` endpoints of
    /// Microsoft Entra External ID). Default false.
    public var nativeAuthEnabled: Bool = false
    /// Whether the app is one of Microsoft's own (first-party) clients, such as the Azure CLI's: Entra grants it only
    /// what it is preauthorized for, so it asks for `{resource}/.default` (its ``preConsentedScopes`` on that
    /// resource); an individual API scope fails with AADSTS65002, as in Entra. Default false.
    public var preauthorizedOnly: Bool = false

    /// Creates an app registration.
    public init(
        clientId: String, displayName: String, isPublicClient: Bool = true, clientSecret: String? = nil,
        redirectURIs: [String], preConsentedScopes: [String] = [], familyId: String? = nil,
        certificates: [String] = [], applicationPermissions: [String] = [], federatedCredentials: [FederatedCredential] = []
    ) {
        self.clientId = clientId
        self.displayName = displayName
        self.isPublicClient = isPublicClient
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.preConsentedScopes = preConsentedScopes
        self.familyId = familyId
        self.certificates = certificates
        self.applicationPermissions = applicationPermissions
        self.federatedCredentials = federatedCredentials
    }

    enum CodingKeys: String, CodingKey {
        case clientId, displayName, isPublicClient, clientSecret, redirectURIs, preConsentedScopes, familyId
        case certificates, applicationPermissions, federatedCredentials, nativeAuthEnabled, preauthorizedOnly
    }

    /// Decodes an app registration; only `clientId` is required. A confidential client needs no redirect URI
    /// (a daemon has none), so `redirectURIs` defaults to none, `isPublicClient` to `true` unless a secret or a
    /// certificate or a federated credential is given.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientId = try c.decode(String.self, forKey: .clientId)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? clientId
        clientSecret = try c.decodeIfPresent(String.self, forKey: .clientSecret)
        certificates = try c.decodeIfPresent([String].self, forKey: .certificates) ?? []
        federatedCredentials = try c.decodeIfPresent([FederatedCredential].self, forKey: .federatedCredentials) ?? []
        isPublicClient = try c.decodeIfPresent(Bool.self, forKey: .isPublicClient)
            ?? (clientSecret == nil && certificates.isEmpty && federatedCredentials.isEmpty)
        redirectURIs = try c.decodeIfPresent([String].self, forKey: .redirectURIs) ?? []
        preConsentedScopes = try c.decodeIfPresent([String].self, forKey: .preConsentedScopes) ?? []
        familyId = try c.decodeIfPresent(String.self, forKey: .familyId)
        applicationPermissions = try c.decodeIfPresent([String].self, forKey: .applicationPermissions) ?? []
        nativeAuthEnabled = try c.decodeIfPresent(Bool.self, forKey: .nativeAuthEnabled) ?? false
        preauthorizedOnly = try c.decodeIfPresent(Bool.self, forKey: .preauthorizedOnly) ?? false
    }
}

/// A protected API and its delegated permissions.
public struct EmulatedAPI: Codable, Sendable, Equatable {
    /// Resource identifier URI, e.g. `https://graph.microsoft.com` or `api://my-api`.
    public var identifier: String
    /// The API's application id (GUID).
    public var appId: String
    /// Delegated scope names, e.g. `User.Read`.
    public var scopes: [String]
    /// Creates an API.
    public init(identifier: String, appId: String, scopes: [String]) {
        self.identifier = identifier
        self.appId = appId
        self.scopes = scopes
    }
}

/// Lifetimes, in seconds, of what the emulator issues.
public struct TokenLifetimes: Codable, Sendable, Equatable {
    /// Access token lifetime (Entra default is 60–90 minutes).
    public var accessToken: Int = 3600
    /// ID token lifetime.
    public var idToken: Int = 3600
    /// Refresh token lifetime (inactivity).
    public var refreshToken: Int = 90 * 86_400
    /// Authorization code lifetime (Entra: about 10 minutes).
    public var authorizationCode: Int = 600
    /// Device code lifetime.
    public var deviceCode: Int = 900
    /// Device-code polling interval.
    public var deviceCodeInterval: Int = 5
    /// Browser session (SSO cookie) lifetime.
    public var session: Int = 86_400
    /// Lifetime of managed identity tokens (Azure issues them for about 24 hours).
    public var managedIdentityToken: Int = 86_400
    /// Creates lifetimes.
    public init(
        accessToken: Int = 3600, idToken: Int = 3600, refreshToken: Int = 90 * 86_400, authorizationCode: Int = 600,
        deviceCode: Int = 900, deviceCodeInterval: Int = 5, session: Int = 86_400, managedIdentityToken: Int = 86_400
    ) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.authorizationCode = authorizationCode
        self.deviceCode = deviceCode
        self.deviceCodeInterval = deviceCodeInterval
        self.session = session
        self.managedIdentityToken = managedIdentityToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken, idToken, refreshToken, authorizationCode, deviceCode, deviceCodeInterval, session, managedIdentityToken
    }

    /// Decodes lifetimes; absent fields keep their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TokenLifetimes()
        accessToken = try c.decodeIfPresent(Int.self, forKey: .accessToken) ?? d.accessToken
        idToken = try c.decodeIfPresent(Int.self, forKey: .idToken) ?? d.idToken
        refreshToken = try c.decodeIfPresent(Int.self, forKey: .refreshToken) ?? d.refreshToken
        authorizationCode = try c.decodeIfPresent(Int.self, forKey: .authorizationCode) ?? d.authorizationCode
        deviceCode = try c.decodeIfPresent(Int.self, forKey: .deviceCode) ?? d.deviceCode
        deviceCodeInterval = try c.decodeIfPresent(Int.self, forKey: .deviceCodeInterval) ?? d.deviceCodeInterval
        session = try c.decodeIfPresent(Int.self, forKey: .session) ?? d.session
        managedIdentityToken = try c.decodeIfPresent(Int.self, forKey: .managedIdentityToken) ?? d.managedIdentityToken
    }
}
