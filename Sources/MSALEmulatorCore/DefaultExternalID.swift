import Foundation

extension EmulatorConfiguration {
    /// GUID of the demo Microsoft Entra External ID tenant (``externalTenantDomain``).
    public static let externalTenantId = "e5c1a7b9-2d4f-4a6c-8e0b-1f3d5a7c9e2b"
    /// Domain of the demo External ID tenant: native-authentication apps use the authority
    /// `{emulator}/contosocustomers.onmicrosoft.com` (the loopback shape of
    /// `https://contosocustomers.ciamlogin.com/contosocustomers.onmicrosoft.com`).
    public static let externalTenantDomain = "contosocustomers.onmicrosoft.com"
    /// Client id of the demo native-authentication app (public client, native authentication enabled, `User.Read`
    /// pre-consented, `http://localhost` for the browser fallback).
    public static let nativeAuthClientId = "5c4b3a29-1807-4f6e-9d5c-4b3a29180706"
    /// The demo customer who signs in with a password (`Passw0rd!`).
    public static let customerWithPassword = "ada@example.org"
    /// The demo customer who signs in with an emailed one-time passcode.
    public static let customerWithCode = "olivia@example.org"
    /// The demo customer whose sign-in (password `Passw0rd!`) needs a second factor: a code sent to
    /// `mary.backup@example.org` (method `email-1`) or by text to `+1 555 0100` (method `sms-1`).
    public static let customerWithMFA = "mary@example.org"
    /// The demo customer (password `Passw0rd!`) who must register a strong method at their next sign-in.
    public static let customerRegistering = "linus@example.org"

    /// The demo External ID tenant.
    public static var externalIDTenant: EmulatedTenant {
        EmulatedTenant(id: externalTenantId, domains: [externalTenantDomain], displayName: "Contoso Customers", kind: .external)
    }

    /// The demo External ID tenant's customers: ``customerWithPassword`` and ``customerWithCode``.
    public static var externalIDUsers: [EmulatedUser] {
        [
            EmulatedUser(username: customerWithPassword, password: "Passw0rd!", objectId: "3a9f7e5d-1c2b-4d6e-8f0a-b1c2d3e4f5a6",
                         homeTenantId: externalTenantId, displayName: "Ada Lovelace", givenName: "Ada", surname: "Lovelace",
                         mail: customerWithPassword),
            EmulatedUser(username: customerWithCode, password: "", objectId: "4f3e2d1c-0b9a-4877-a665-544332211009",
                         homeTenantId: externalTenantId, displayName: "Olivia Code", mail: customerWithCode),
            EmulatedUser(username: customerWithMFA, password: "Passw0rd!", objectId: "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e",
                         homeTenantId: externalTenantId, displayName: "Mary Jackson", givenName: "Mary", surname: "Jackson",
                         mail: customerWithMFA),
            EmulatedUser(username: customerRegistering, password: "Passw0rd!", objectId: "6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f",
                         homeTenantId: externalTenantId, displayName: "Linus Register", mail: customerRegistering),
        ]
    }

    /// The demo native-authentication app.
    public static var nativeAuthApplication: EmulatedApplication {
        var app = EmulatedApplication(clientId: nativeAuthClientId, displayName: "Contoso Customers",
                                      redirectURIs: ["http://localhost", "http://127.0.0.1"],
                                      preConsentedScopes: ["\(graphResource)/User.Read"])
        app.nativeAuthEnabled = true
        return app
    }
}

/// How the emulator's External ID tenants run native authentication.
public struct NativeAuthSettings: Codable, Sendable, Equatable {
    /// An attribute the sign-up user flow collects.
    public struct Attribute: Codable, Sendable, Equatable {
        /// The attribute's programmable name (`displayName`, `city`, `extension_<app>_<name>`).
        public var name: String
        /// Its type as the service names it (`string`, `boolean`, `int`).
        public var type: String
        /// Whether sign-up cannot finish without it.
        public var required: Bool
        /// A regular expression the value must match.
        public var regex: String?

        public init(name: String, type: String = "string", required: Bool, regex: String? = nil) {
            self.name = name
            self.type = type
            self.required = required
            self.regex = regex
        }
    }

    /// A strong authentication method of a customer: where a second-factor code goes.
    public struct StrongMethod: Codable, Sendable, Equatable {
        /// The method's id, as `introspect` lists it.
        public var id: String
        /// `email` or `sms`.
        public var channel: String
        /// The address or phone number the code goes to.
        public var target: String
        /// Whether the service refuses to send codes to it (`provider_blocked_by_rep`).
        public var blocked: Bool

        public init(id: String, channel: String = "email", target: String, blocked: Bool = false) {
            self.id = id
            self.channel = channel
            self.target = target
            self.blocked = blocked
        }

        enum CodingKeys: String, CodingKey { case id, channel, target, blocked }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            channel = try c.decodeIfPresent(String.self, forKey: .channel) ?? "email"
            target = try c.decode(String.self, forKey: .target)
            blocked = try c.decodeIfPresent(Bool.self, forKey: .blocked) ?? false
        }
    }

    /// A customer the tenant requires a strong method of: with methods, every sign-in needs a second factor
    /// (`mfa_required`); without, the user registers one at sign-in (`registration_required`).
    public struct StrongAuthUser: Codable, Sendable, Equatable {
        public var username: String
        public var methods: [StrongMethod]

        public init(username: String, methods: [StrongMethod]) {
            self.username = username
            self.methods = methods
        }
    }

    /// Whether sign-up sets a password (the "email with password" user flow); false: email one-time passcode only.
    public var signUpWithPassword: Bool
    /// The attributes sign-up collects. Default: `displayName` (required) and `city` (optional).
    public var signUpAttributes: [Attribute]
    /// The shortest password accepted (Entra: 8).
    public var passwordMinimumLength: Int
    /// How many `poll_completion` calls answer `in_progress` before a password reset succeeds.
    public var resetPasswordPolls: Int
    /// The `poll_interval` (seconds) a password reset tells the client to wait between polls.
    public var resetPasswordPollInterval: Int
    /// The customers who need a strong method. Default: ``EmulatorConfiguration/customerWithMFA`` (two methods)
    /// and ``EmulatorConfiguration/customerRegistering`` (none yet).
    public var strongAuthentication: [StrongAuthUser]
    /// Contacts the service refuses to register or send codes to (`provider_blocked_by_rep`).
    public var blockedContacts: [String]

    public static let defaultStrongAuthentication = [
        StrongAuthUser(username: EmulatorConfiguration.customerWithMFA,
                       methods: [StrongMethod(id: "email-1", target: "mary.backup@example.org"),
                                 StrongMethod(id: "sms-1", channel: "sms", target: "+15550100")]),
        StrongAuthUser(username: EmulatorConfiguration.customerRegistering, methods: []),
    ]

    public init(signUpWithPassword: Bool = true,
                signUpAttributes: [Attribute] = [Attribute(name: "displayName", required: true), Attribute(name: "city", required: false)],
                passwordMinimumLength: Int = 8, resetPasswordPolls: Int = 1, resetPasswordPollInterval: Int = 1,
                strongAuthentication: [StrongAuthUser] = NativeAuthSettings.defaultStrongAuthentication,
                blockedContacts: [String] = ["blocked@example.org"]) {
        self.signUpWithPassword = signUpWithPassword
        self.signUpAttributes = signUpAttributes
        self.passwordMinimumLength = passwordMinimumLength
        self.resetPasswordPolls = resetPasswordPolls
        self.resetPasswordPollInterval = resetPasswordPollInterval
        self.strongAuthentication = strongAuthentication
        self.blockedContacts = blockedContacts
    }

    enum CodingKeys: String, CodingKey {
        case signUpWithPassword, signUpAttributes, passwordMinimumLength, resetPasswordPolls, resetPasswordPollInterval
        case strongAuthentication, blockedContacts
    }

    /// Decodes settings; absent fields keep their defaults.
    public init(from decoder: any Decoder) throws {
        let base = NativeAuthSettings()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        signUpWithPassword = try c.decodeIfPresent(Bool.self, forKey: .signUpWithPassword) ?? base.signUpWithPassword
        signUpAttributes = try c.decodeIfPresent([Attribute].self, forKey: .signUpAttributes) ?? base.signUpAttributes
        passwordMinimumLength = try c.decodeIfPresent(Int.self, forKey: .passwordMinimumLength) ?? base.passwordMinimumLength
        resetPasswordPolls = try c.decodeIfPresent(Int.self, forKey: .resetPasswordPolls) ?? base.resetPasswordPolls
        resetPasswordPollInterval = try c.decodeIfPresent(Int.self, forKey: .resetPasswordPollInterval) ?? base.resetPasswordPollInterval
        strongAuthentication = try c.decodeIfPresent([StrongAuthUser].self, forKey: .strongAuthentication) ?? base.strongAuthentication
        blockedContacts = try c.decodeIfPresent([String].self, forKey: .blockedContacts) ?? base.blockedContacts
    }
}
