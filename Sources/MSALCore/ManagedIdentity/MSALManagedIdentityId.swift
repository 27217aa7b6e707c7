/// Which managed identity to use: the resource's system-assigned identity, or a user-assigned one named by its
/// client id, object (principal) id or Azure resource id.
public enum MSALManagedIdentityId: Sendable, Hashable, CustomStringConvertible {
    /// The identity Azure gives the resource itself.
    case systemAssigned
    /// A user-assigned identity, by its client (application) id.
    case userAssignedClientId(String)
    /// A user-assigned identity, by its object (principal) id.
    case userAssignedObjectId(String)
    /// A user-assigned identity, by its Azure resource id (`/subscriptions/.../userAssignedIdentities/...`).
    case userAssignedResourceId(String)

    /// The `client_id` the identity's tokens are cached under, as MSAL for Python files them.
    var cacheClientId: String {
        switch self {
        case .systemAssigned: return "SYSTEM_ASSIGNED_MANAGED_IDENTITY"
        case .userAssignedClientId(let id), .userAssignedObjectId(let id), .userAssignedResourceId(let id): return id
        }
    }

    /// The kind and value of a user-assigned identity; nil for the system-assigned one.
    var userAssigned: (kind: UserAssignedKind, value: String)? {
        switch self {
        case .systemAssigned: return nil
        case .userAssignedClientId(let id): return (.clientId, id)
        case .userAssignedObjectId(let id): return (.objectId, id)
        case .userAssignedResourceId(let id): return (.resourceId, id)
        }
    }

    enum UserAssignedKind: Sendable { case clientId, objectId, resourceId }

    public var description: String {
        switch self {
        case .systemAssigned: return "system-assigned managed identity"
        case .userAssignedClientId(let id): return "user-assigned managed identity (client id \(id))"
        case .userAssignedObjectId(let id): return "user-assigned managed identity (object id \(id))"
        case .userAssignedResourceId(let id): return "user-assigned managed identity (resource id \(id))"
        }
    }
}

/// Where a managed identity's tokens come from, found from the environment as MSAL for Python finds it.
public enum MSALManagedIdentitySource: String, Sendable {
    /// Azure App Service, Functions, Container Apps, Automation: `IDENTITY_ENDPOINT` + `IDENTITY_HEADER`.
    case appService = "app_service"
    /// Service Fabric: `IDENTITY_ENDPOINT` + `IDENTITY_HEADER` + `IDENTITY_SERVER_THUMBPRINT`.
    case serviceFabric = "service_fabric"
    /// Azure Machine Learning and Cloud Shell: `MSI_ENDPOINT` (+ `MSI_SECRET`).
    case msiEndpoint = "msi_endpoint"
    /// Azure Arc-enabled servers: `IDENTITY_ENDPOINT` + `IMDS_ENDPOINT`, with the challenge-file handshake.
    case azureArc = "azure_arc"
    /// The Azure instance metadata service of VMs and scale sets (the default).
    case imds = "imds"
}
