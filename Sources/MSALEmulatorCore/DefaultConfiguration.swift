import Foundation

extension EmulatedApplication {
    /// This registration as a first-party client (``preauthorizedOnly``).
    func preauthorized() -> EmulatedApplication {
        var app = self
        app.preauthorizedOnly = true
        return app
    }
}

extension EmulatorConfiguration {
    /// GUID of the demo organisation tenant (`contoso.onmicrosoft.com`).
    public static let demoTenantId = "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13"
    /// GUID Entra uses for the personal Microsoft account tenant.
    public static let consumersTenantId = "9188040d-6c67-4c5b-b112-36a304b66dad"
    /// GUID of the demo Azure AD B2C tenant (`fabrikamb2c.onmicrosoft.com`).
    public static let b2cTenantId = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
    /// Client id of the demo public-client app.
    public static let demoClientId = "0b6f1c3a-52d4-4e07-9a3b-7c1e2d4f6a80"
    /// The nested app of nested app authentication, hosted by the demo app.
    public static let nestedAppClientId = "3c1d5e7f-9a2b-4c6d-8e0f-1a3b5c7d9e2f"
    /// Client id of the demo confidential web app (secret `emulator-secret`, authorization code flow).
    public static let webAppClientId = "3c4d5e6f-7a8b-4c9d-a0e1-f2a3b4c5d6e7"
    /// Client id of the demo daemon: a confidential client (secret `daemon-secret`) with the Graph application
    /// permission `User.Read.All`, for the client credentials grant.
    public static let daemonClientId = "7d3e1b2a-4c5f-4e6d-8a9b-0c1d2e3f4a5b"
    /// Client id of the demo middle-tier web API: a confidential client (secret `middle-tier-secret`) that exposes
    /// `api://{middleTierClientId}` with the delegated scope `access_as_user` and calls Graph `User.Read` on behalf of
    /// its users (on-behalf-of flow).
    public static let middleTierClientId = "2e4f6a8c-1b3d-4f5e-9a7c-6d8e0f1a2b3c"
    /// Microsoft Graph's resource URI.
    public static let graphResource = "https://graph.microsoft.com"
    /// Microsoft Graph's application id.
    public static let graphAppId = "00000003-0000-0000-c000-000000000000"
    /// The Azure CLI's public client id (a family client), registered so that `az login` works unchanged.
    public static let azureCLIClientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    /// Azure Resource Manager's resource URI (the token audience `az` asks for), trailing slash included.
    public static let resourceManagerResource = "https://management.core.windows.net/"
    /// Azure Resource Manager's application id.
    public static let resourceManagerAppId = "797f4846-ba00-4fd7-ba43-dac1f8f63013"
    /// The audiences ARM accepts in a bearer token (lowercased).
    static let resourceManagerAudiences: Set<String> = [
        resourceManagerResource, "https://management.core.windows.net", resourceManagerAppId,
        "https://management.azure.com/", "https://management.azure.com",
    ]
    /// The demo tenant's subscription (the one the demo managed identities' resource ids name).
    public static let demoSubscriptionId = "6e5d4c3b-2a19-4f8e-9d7c-6b5a4f3e2d1c"

    /// A ready set-up: the `contoso.onmicrosoft.com` tenant with two users (`adele@…`, `alex@…`, password
    /// `Passw0rd!`), the personal-account tenant with `megan@outlook.com`, a B2C tenant
    /// `fabrikamb2c.onmicrosoft.com` with `carol@example.com`, the demo public client
    /// (``demoClientId``, redirect URIs `http://localhost` on any port and `msauth` schemes, `User.Read` pre-consented),
    /// two family (FOCI) apps, a confidential web app (``webAppClientId``, secret `emulator-secret`), a daemon
    /// (``daemonClientId``, secret `daemon-secret`, application permission Graph `User.Read.All`), a middle-tier API
    /// (``middleTierClientId``, secret `middle-tier-secret`, exposing `api://{middleTierClientId}/access_as_user`,
    /// Graph `User.Read` consented for on-behalf-of calls; the demo public client has `access_as_user` consented)
    /// Microsoft Graph, and Azure Resource Manager (``resourceManagerResource``, scope `user_impersonation`) with the
    /// Azure CLI's public client (``azureCLIClientId``, a family client). The daemon also trusts the emulator's federated issuer for the subject
    /// ``daemonFederatedSubject`` (workload identity), and two managed identities are served
    /// (``defaultManagedIdentities``: ``systemAssignedIdentityClientId`` and ``userAssignedIdentityClientId``).
    /// The External ID tenant ``externalTenantDomain`` serves native authentication to ``nativeAuthClientId``
    /// (``externalIDUsers``).
    public static var `default`: EmulatorConfiguration {
        let graphUserRead = "\(graphResource)/User.Read"
        let middleTierAPI = "api://\(middleTierClientId)"
        let b2cApi = "https://fabrikamb2c.onmicrosoft.com/api"
        return EmulatorConfiguration(
            tenants: [
                EmulatedTenant(id: demoTenantId, domains: ["contoso.onmicrosoft.com", "contoso.com"], displayName: "Contoso"),
                EmulatedTenant(id: consumersTenantId, domains: [], displayName: "Microsoft Accounts", kind: .consumers),
                EmulatedTenant(
                    id: b2cTenantId, domains: ["fabrikamb2c.onmicrosoft.com"], displayName: "Fabrikam B2C", kind: .b2c,
                    policies: [
                        B2CPolicy(name: "B2C_1_signupsignin", kind: .signUpOrSignIn),
                        B2CPolicy(name: "B2C_1_profileediting", kind: .profileEdit),
                        B2CPolicy(name: "B2C_1_passwordreset", kind: .passwordReset),
                    ]
                ),
                externalIDTenant,
            ],
            users: [
                EmulatedUser(
                    username: "adele@contoso.onmicrosoft.com", password: "Passw0rd!",
                    objectId: "8d4c2a1b-3e5f-4a6b-9c7d-0e1f2a3b4c5d", homeTenantId: demoTenantId,
                    displayName: "Adele Vance", givenName: "Adele", surname: "Vance", jobTitle: "Product Manager"
                ),
                EmulatedUser(
                    username: "alex@contoso.onmicrosoft.com", password: "Passw0rd!",
                    objectId: "2b7e9f10-4c3d-4e2a-8b1c-5d6e7f8a9b0c", homeTenantId: demoTenantId,
                    displayName: "Alex Wilber", givenName: "Alex", surname: "Wilber", jobTitle: "Marketing Assistant"
                ),
                EmulatedUser(
                    username: "megan@outlook.com", password: "Passw0rd!",
                    objectId: "00000000-0000-0000-6d3e-2a1b4c5d6e7f", homeTenantId: consumersTenantId,
                    guestOf: [demoTenantId], displayName: "Megan Bowen", givenName: "Megan", surname: "Bowen"
                ),
                EmulatedUser(
                    username: "carol@example.com", password: "Passw0rd!",
                    objectId: "7a6b5c4d-3e2f-4a1b-8c9d-e0f1a2b3c4d5", homeTenantId: b2cTenantId,
                    displayName: "Carol Smith", givenName: "Carol", surname: "Smith"
                ),
            ] + externalIDUsers,
            applications: [
                EmulatedApplication(
                    clientId: demoClientId, displayName: "MSAL Emulator Demo",
                    redirectURIs: [
                        "http://localhost", "http://127.0.0.1",
                        "https://login.microsoftonline.com/common/oauth2/nativeclient",
                        "msauth.com.example.msaldemo://auth", "msal\(demoClientId)://auth",
                    ],
                    preConsentedScopes: [graphUserRead, "\(b2cApi)/demo.read", "\(middleTierAPI)/access_as_user"]
                ),
                // A nested app hosted by the demo app (nested app authentication): its redirect URI is made for
                // that hub.
                EmulatedApplication(
                    clientId: nestedAppClientId, displayName: "Contoso Nested App",
                    redirectURIs: ["brk-\(demoClientId)://localhost"], preConsentedScopes: [graphUserRead]
                ),
                EmulatedApplication(
                    clientId: "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9", displayName: "Family App One",
                    redirectURIs: ["http://localhost"], preConsentedScopes: [graphUserRead], familyId: "1"
                ),
                EmulatedApplication(
                    clientId: "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4", displayName: "Family App Two",
                    redirectURIs: ["http://localhost"], preConsentedScopes: [graphUserRead], familyId: "1"
                ),
                EmulatedApplication(
                    clientId: webAppClientId, displayName: "Contoso Web App",
                    isPublicClient: false, clientSecret: "emulator-secret",
                    redirectURIs: ["http://localhost/callback", "https://localhost/callback"],
                    preConsentedScopes: [graphUserRead]
                ),
                EmulatedApplication(
                    clientId: daemonClientId, displayName: "Contoso Daemon", isPublicClient: false, clientSecret: "daemon-secret",
                    redirectURIs: [], applicationPermissions: ["\(graphResource)/User.Read.All"],
                    federatedCredentials: [
                        FederatedCredential(name: "kubernetes-daemon", issuer: emulatorFederatedIssuer, subject: daemonFederatedSubject),
                    ]
                ),
                EmulatedApplication(
                    clientId: middleTierClientId, displayName: "Contoso Middle-Tier API", isPublicClient: false,
                    clientSecret: "middle-tier-secret", redirectURIs: [], preConsentedScopes: [graphUserRead]
                ),
                EmulatedApplication(
                    clientId: azureCLIClientId, displayName: "Microsoft Azure CLI",
                    redirectURIs: ["http://localhost", "http://127.0.0.1", "https://login.microsoftonline.com/common/oauth2/nativeclient"],
                    preConsentedScopes: ["\(resourceManagerResource)/user_impersonation", graphUserRead], familyId: "1"
                ).preauthorized(),
                nativeAuthApplication,
            ],
            apis: [
                EmulatedAPI(
                    identifier: graphResource, appId: graphAppId,
                    scopes: ["User.Read", "User.ReadBasic.All", "User.Read.All", "Mail.Read", "Calendars.Read", "Files.Read",
                             "Tasks.ReadWrite"]
                ),
                EmulatedAPI(identifier: "api://msal-emulator-api", appId: "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d", scopes: ["access_as_user"]),
                EmulatedAPI(identifier: middleTierAPI, appId: middleTierClientId, scopes: ["access_as_user"]),
                EmulatedAPI(identifier: b2cApi, appId: "4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8", scopes: ["demo.read", "demo.write"]),
                EmulatedAPI(identifier: resourceManagerResource, appId: resourceManagerAppId, scopes: ["user_impersonation"]),
            ],
            defaults: Defaults(
                tenant: "contoso.onmicrosoft.com", clientId: demoClientId,
                username: "adele@contoso.onmicrosoft.com", scopes: ["User.Read"]
            ),
            managedIdentities: defaultManagedIdentities
        )
    }

    /// The password of the default user.
    public var defaultPassword: String {
        users.first { $0.username.lowercased() == defaults.username.lowercased() }?.password ?? ""
    }
}

/// Builds an ``EmulatorConfiguration`` step by step, starting from the ready default.
///
/// ```swift
/// let config = EmulatorConfigurationBuilder()
///     .user(EmulatedUser(username: "bob@contoso.onmicrosoft.com", password: "pw", objectId: UUID().uuidString.lowercased(),
///                        homeTenantId: EmulatorConfiguration.demoTenantId, displayName: "Bob"))
///     .lifetimes(TokenLifetimes(accessToken: 5))
///     .build()
/// ```
public struct EmulatorConfigurationBuilder: Sendable {
    private var configuration: EmulatorConfiguration

    /// Starts from ``EmulatorConfiguration/default`` or the given configuration.
    public init(_ base: EmulatorConfiguration = .default) {
        configuration = base
    }

    /// Adds (or replaces, by id) a tenant.
    public func tenant(_ tenant: EmulatedTenant) -> Self {
        var copy = self
        copy.configuration.tenants.removeAll { $0.id == tenant.id }
        copy.configuration.tenants.append(tenant)
        return copy
    }

    /// Adds (or replaces, by username) a user.
    public func user(_ user: EmulatedUser) -> Self {
        var copy = self
        copy.configuration.users.removeAll { $0.username.lowercased() == user.username.lowercased() }
        copy.configuration.users.append(user)
        return copy
    }

    /// Adds (or replaces, by client id) an app registration.
    public func application(_ app: EmulatedApplication) -> Self {
        var copy = self
        copy.configuration.applications.removeAll { $0.clientId == app.clientId }
        copy.configuration.applications.append(app)
        return copy
    }

    /// Adds (or replaces, by identifier) an API.
    public func api(_ api: EmulatedAPI) -> Self {
        var copy = self
        copy.configuration.apis.removeAll { $0.identifier == api.identifier }
        copy.configuration.apis.append(api)
        return copy
    }

    /// Adds (or replaces, by client id) a managed identity.
    public func managedIdentity(_ identity: EmulatedManagedIdentity) -> Self {
        var copy = self
        copy.configuration.managedIdentities.removeAll { $0.clientId == identity.clientId }
        copy.configuration.managedIdentities.append(identity)
        return copy
    }

    /// Sets token lifetimes.
    public func lifetimes(_ lifetimes: TokenLifetimes) -> Self {
        var copy = self
        copy.configuration.lifetimes = lifetimes
        return copy
    }

    /// Adds a fault rule.
    public func fault(_ rule: FaultRule) -> Self {
        var copy = self
        copy.configuration.faults.append(rule)
        return copy
    }

    /// **Emulator-only feature:** approves every interactive and device-code sign-in for `username` without a page.
    public func autoApprove(username: String?) -> Self {
        var copy = self
        copy.configuration.autoApproveUsername = username
        return copy
    }

    /// Sets the listening ports (0 picks free ports).
    public func ports(https: Int, http: Int = 0) -> Self {
        var copy = self
        copy.configuration.httpsPort = https
        copy.configuration.httpPort = http
        return copy
    }

    /// The finished configuration.
    public func build() -> EmulatorConfiguration { configuration }
}
