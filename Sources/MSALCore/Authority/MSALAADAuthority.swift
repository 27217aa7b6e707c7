public import Foundation

/// Which accounts an AAD authority accepts.
public enum MSALAudienceType: Int, Sendable {
    /// Work/school and personal accounts: `/common`.
    case azureADAndPersonalMicrosoftAccountAudience = 0
    /// Work/school accounts of any organization: `/organizations`.
    case azureADMultipleOrgsAudience = 1
    /// Accounts of one organization: `/<tenant>`.
    case azureADMyOrgOnlyAudience = 2
    /// Personal Microsoft accounts only: `/consumers`.
    case personalMicrosoftAccountAudience = 3
}

/// The Microsoft cloud an AAD authority lives in.
public enum MSALAzureCloudInstance: Int, Sendable {
    case publicCloudInstance = 0
    case chinaCloudInstance = 1
    case germanyCloudInstance = 2
    case usGovernmentCloudInstance = 3
    case franceCloudInstance = 4
    case delosCloudInstance = 5
    case govSGCloudInstance = 6

    /// The sign-in host of the cloud.
    var host: String {
        switch self {
        case .publicCloudInstance: return "login.microsoftonline.com"
        case .chinaCloudInstance: return "login.chinacloudapi.cn"
        case .germanyCloudInstance: return "login.microsoftonline.de"
        case .usGovernmentCloudInstance: return "login.microsoftonline.us"
        case .franceCloudInstance: return "login.sovcloud-identity.fr"
        case .delosCloudInstance: return "login.sovcloud-identity.de"
        case .govSGCloudInstance: return "login.sovcloud-identity.sg"
        }
    }
}

/// A Microsoft Entra ID authority: `https://<host>/<common | organizations | consumers | tenant id | domain>`.
public final class MSALAADAuthority: MSALAuthority, @unchecked Sendable {
    /// Creates an AAD authority from its URL, such as `https://login.microsoftonline.com/common`.
    public init(url: URL) throws {
        super.init(descriptor: try AuthorityDescriptor.parse(url, as: .aad))
    }

    /// Creates an AAD authority from a cloud URL and a tenant (`rawTenant` replaces any tenant in `url`).
    public init(url: URL, rawTenant: String?) throws {
        var descriptor = try Self.parseHostOnly(url)
        if let rawTenant, !rawTenant.isEmpty {
            descriptor = descriptor.withTenant(try Self.validTenant(rawTenant))
        } else if descriptor.tenant.isEmpty {
            descriptor = descriptor.withTenant("common")
        }
        super.init(descriptor: descriptor)
    }

    /// Creates an AAD authority for a cloud and audience. `rawTenant` is required for
    /// ``MSALAudienceType/azureADMyOrgOnlyAudience`` and must be nil otherwise.
    public init(cloudInstance: MSALAzureCloudInstance, audienceType: MSALAudienceType, rawTenant: String?) throws {
        super.init(descriptor: try Self.descriptor(host: cloudInstance.host, audienceType: audienceType, rawTenant: rawTenant))
    }

    /// Creates an AAD authority for a host (`environment`, such as `login.microsoftonline.com`) and audience.
    public init(environment: String, audienceType: MSALAudienceType, rawTenant: String?) throws {
        super.init(descriptor: try Self.descriptor(host: environment, audienceType: audienceType, rawTenant: rawTenant))
    }

    override init(descriptor: AuthorityDescriptor) {
        super.init(descriptor: descriptor)
    }

    private static func descriptor(host: String, audienceType: MSALAudienceType, rawTenant: String?) throws -> AuthorityDescriptor {
        let tenant: String
        switch audienceType {
        case .azureADAndPersonalMicrosoftAccountAudience: tenant = "common"
        case .azureADMultipleOrgsAudience: tenant = "organizations"
        case .personalMicrosoftAccountAudience: tenant = "consumers"
        case .azureADMyOrgOnlyAudience:
            guard let rawTenant, !rawTenant.isEmpty else {
                throw MSALErrorInfo.invalidParameter("azureADMyOrgOnlyAudience requires a tenant id or domain (rawTenant).")
            }
            tenant = try validTenant(rawTenant)
        }
        if audienceType != .azureADMyOrgOnlyAudience, let rawTenant, !rawTenant.isEmpty {
            throw MSALErrorInfo.invalidParameter("rawTenant must be nil unless the audience is azureADMyOrgOnlyAudience.")
        }
        guard let url = URL(string: "https://\(host)/\(tenant)") else {
            throw MSALErrorInfo.invalidParameter("\"\(host)\" is not a valid host.")
        }
        return try AuthorityDescriptor.parse(url, as: .aad)
    }

    private static func parseHostOnly(_ url: URL) throws -> AuthorityDescriptor {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw MSALErrorInfo.invalidParameter("The authority URL \"\(url.absoluteString)\" is not a valid URL.")
        }
        let segments = components.path.split(separator: "/").map(String.init)
        guard segments.count <= 1 else {
            throw MSALErrorInfo.invalidParameter("An AAD authority must have the form https://host/<tenant>: \(url.absoluteString)")
        }
        components.path = "/" + (segments.first ?? "common")
        guard let full = components.url else {
            throw MSALErrorInfo.invalidParameter("The authority URL \"\(url.absoluteString)\" is not a valid URL.")
        }
        return try AuthorityDescriptor.parse(full, as: .aad)
    }

    private static func validTenant(_ tenant: String) throws -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_"))
        guard tenant.unicodeScalars.allSatisfy({ allowed.contains($0) }) else {
            throw MSALErrorInfo.invalidParameter("\"\(tenant)\" is not a valid tenant id or domain.")
        }
        return tenant
    }
}

/// An Azure AD B2C authority: one user flow (policy), `https://<host>/tfp/<tenant>/<policy>` or
/// `https://<host>/<tenant>/<policy>`. B2C authorities cannot be validated through instance discovery, so list
/// them in ``MSALPublicClientApplicationConfig/knownAuthorities``.
public final class MSALB2CAuthority: MSALAuthority, @unchecked Sendable {
    /// Creates a B2C authority from its URL.
    public init(url: URL) throws {
        super.init(descriptor: try AuthorityDescriptor.parse(url, as: .b2c))
    }

    /// Creates a B2C authority; format validation cannot be turned off in this library.
    public convenience init(url: URL, validateFormat: Bool) throws {
        try self.init(url: url)
    }

    override init(descriptor: AuthorityDescriptor) {
        super.init(descriptor: descriptor)
    }
}

/// A Microsoft Entra External ID (CIAM) authority: `https://<tenant>.ciamlogin.com[/<tenant id or domain>]`.
/// CIAM authorities are never validated through instance discovery.
public final class MSALCIAMAuthority: MSALAuthority, @unchecked Sendable {
    /// Creates a CIAM authority from its URL.
    public init(url: URL) throws {
        super.init(descriptor: try AuthorityDescriptor.parse(url, as: .ciam))
    }

    /// Creates a CIAM authority; `validateFormat` is accepted for source compatibility.
    public convenience init(url: URL, validateFormat: Bool) throws {
        try self.init(url: url)
    }

    override init(descriptor: AuthorityDescriptor) {
        super.init(descriptor: descriptor)
    }
}

/// An Active Directory Federation Services authority (`https://<host>/adfs`), as MSAL for iOS/macOS declares it.
/// Signing in with AD FS as the identity provider directly is not supported, as in MSAL for iOS/macOS, whose
/// initializer always fails (`MSALADFSAuthority.m`): AD FS is supported through federation with Microsoft Entra ID.
public final class MSALADFSAuthority: MSALAuthority, @unchecked Sendable {
    /// Always throws, as MSAL for iOS/macOS's initializer always fails.
    ///
    /// - Throws: ``MSALErrorInfo`` (``MSALInternalError/internalErrorInvalidParameter``): AD FS authorities are not
    ///   supported.
    public init(url: URL) throws {
        throw MSALErrorInfo.invalidParameter("AD FS authority is not supported yet in MSAL (\(url.absoluteString)); "
                                             + "AD FS is supported through federation with Microsoft Entra ID.")
    }
}
