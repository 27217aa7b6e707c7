import Foundation

/// An Azure managed identity: the identity Azure gives a VM, App Service or Arc-enabled server (system-assigned),
/// or one made on its own and attached to resources (user-assigned). Tokens for it come from the App Service,
/// IMDS and Azure Arc endpoints of the emulator.
public struct EmulatedManagedIdentity: Codable, Sendable, Equatable {
    /// The identity's client (application) id: `appid` of its tokens, `client_id` of a request that selects it.
    public var clientId: String
    /// The object (principal) id of its service principal: `oid` and `sub` of its tokens, `object_id` of a request.
    public var objectId: String
    /// Its Azure resource id (`/subscriptions/.../userAssignedIdentities/{name}` for a user-assigned identity, the
    /// resource the identity belongs to for a system-assigned one): `xms_mirid` of its tokens, `mi_res_id` /
    /// `msi_res_id` of a request.
    public var resourceId: String
    /// Display name.
    public var displayName: String
    /// Whether this is the system-assigned identity (used when a request names no identity).
    public var systemAssigned: Bool
    /// App roles granted to the identity, as `"{resource}/{Role}"` (e.g.
    /// `"https://graph.microsoft.com/User.Read.All"`): the `roles` of its tokens for that resource.
    public var applicationPermissions: [String]
    /// GUID of the tenant that issues its tokens; `nil`: the configuration's first organisation tenant.
    public var tenantId: String?

    /// Creates a managed identity.
    public init(
        clientId: String, objectId: String, resourceId: String, displayName: String, systemAssigned: Bool = false,
        applicationPermissions: [String] = [], tenantId: String? = nil
    ) {
        self.clientId = clientId
        self.objectId = objectId
        self.resourceId = resourceId
        self.displayName = displayName
        self.systemAssigned = systemAssigned
        self.applicationPermissions = applicationPermissions
        self.tenantId = tenantId
    }

    enum CodingKeys: String, CodingKey {
        case clientId, objectId, resourceId, displayName, systemAssigned, applicationPermissions, tenantId
    }

    /// Decodes a managed identity; only `clientId` is required. `objectId` defaults to the client id, `resourceId`
    /// to a user-assigned identity's resource id named after the display name, `systemAssigned` to `false`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientId = try c.decode(String.self, forKey: .clientId)
        objectId = try c.decodeIfPresent(String.self, forKey: .objectId) ?? clientId
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? clientId
        systemAssigned = try c.decodeIfPresent(Bool.self, forKey: .systemAssigned) ?? false
        resourceId = try c.decodeIfPresent(String.self, forKey: .resourceId)
            ?? "\(EmulatorConfiguration.demoResourceGroup)/providers/Microsoft.ManagedIdentity/userAssignedIdentities/\(displayName)"
        applicationPermissions = try c.decodeIfPresent([String].self, forKey: .applicationPermissions) ?? []
        tenantId = try c.decodeIfPresent(String.self, forKey: .tenantId)
    }
}

/// A federated identity credential of an app registration (workload identity federation): tokens of `issuer`
/// for `subject`, addressed to one of `audiences`, authenticate the app as client assertions.
public struct FederatedCredential: Codable, Sendable, Equatable {
    /// Name of the credential (shown in errors and the configuration only).
    public var name: String
    /// The token issuer (`iss`), compared exactly. ``EmulatorConfiguration/emulatorFederatedIssuer`` stands for
    /// the emulator's own issuer, `{base}/federated-issuer`, at any of its listeners.
    public var issuer: String
    /// The subject (`sub`), compared exactly, e.g. `system:serviceaccount:default:daemon`.
    public var subject: String
    /// Accepted audiences (`aud`); by default `api://AzureADTokenExchange`.
    public var audiences: [String]

    /// Creates a federated credential.
    public init(
        name: String = "", issuer: String, subject: String,
        audiences: [String] = [EmulatorConfiguration.federatedTokenAudience]
    ) {
        self.name = name
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
    }

    enum CodingKeys: String, CodingKey {
        case name, issuer, subject, audiences
    }

    /// Decodes a federated credential; `issuer` and `subject` are required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        issuer = try c.decode(String.self, forKey: .issuer)
        subject = try c.decode(String.self, forKey: .subject)
        audiences = try c.decodeIfPresent([String].self, forKey: .audiences) ?? [EmulatorConfiguration.federatedTokenAudience]
    }
}

extension EmulatorConfiguration {
    /// The demo subscription's resource group, the prefix of the demo identities' resource ids.
    public static let demoResourceGroup = "/subscriptions/\(demoSubscriptionId)/resourceGroups/contoso-rg"
    /// Client id of the demo system-assigned managed identity (the identity of the emulated VM or App Service).
    public static let systemAssignedIdentityClientId = "4b3a2c1d-9e8f-4a7b-8c6d-5e4f3a2b1c0d"
    /// Object id of the demo system-assigned managed identity.
    public static let systemAssignedIdentityObjectId = "a1b2c3d4-e5f6-4a7b-9c8d-0e1f2a3b4c5d"
    /// Resource id of the resource the system-assigned identity belongs to.
    public static let systemAssignedIdentityResourceId = "\(demoResourceGroup)/providers/Microsoft.Compute/virtualMachines/contoso-vm"
    /// Client id of the demo user-assigned managed identity.
    public static let userAssignedIdentityClientId = "8f7e6d5c-4b3a-4291-8e0f-1a2b3c4d5e6f"
    /// Object id of the demo user-assigned managed identity.
    public static let userAssignedIdentityObjectId = "c5d4e3f2-a1b0-4c9d-8e7f-6a5b4c3d2e1f"
    /// Resource id of the demo user-assigned managed identity.
    public static let userAssignedIdentityResourceId = "\(demoResourceGroup)/providers/Microsoft.ManagedIdentity/userAssignedIdentities/contoso-identity"
    /// Stands, in a ``FederatedCredential/issuer``, for the emulator's own token issuer (`{base}/federated-issuer`
    /// at any of its listeners), whose tokens `POST /_emulator/federated-tokens` mints.
    public static let emulatorFederatedIssuer = "{emulator}/federated-issuer"
    /// The audience workload identity tokens carry for Entra ID.
    public static let federatedTokenAudience = "api://AzureADTokenExchange"
    /// The Kubernetes service account the demo daemon trusts through its federated credential.
    public static let daemonFederatedSubject = "system:serviceaccount:default:daemon"

    /// The demo managed identities: one system-assigned and one user-assigned, both with Graph `User.Read.All`.
    public static var defaultManagedIdentities: [EmulatedManagedIdentity] {
        let usersRead = ["\(graphResource)/User.Read.All"]
        return [
            EmulatedManagedIdentity(
                clientId: systemAssignedIdentityClientId, objectId: systemAssignedIdentityObjectId,
                resourceId: systemAssignedIdentityResourceId, displayName: "contoso-vm", systemAssigned: true,
                applicationPermissions: usersRead
            ),
            EmulatedManagedIdentity(
                clientId: userAssignedIdentityClientId, objectId: userAssignedIdentityObjectId,
                resourceId: userAssignedIdentityResourceId, displayName: "contoso-identity", applicationPermissions: usersRead
            ),
        ]
    }
}
