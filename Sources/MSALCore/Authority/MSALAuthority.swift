public import Foundation

/// The kind of identity provider an authority names.
enum AuthorityKind: String, Sendable, Hashable {
    /// Microsoft Entra ID (work/school and personal accounts).
    case aad
    /// Azure AD B2C, one authority per user flow (policy).
    case b2c
    /// Microsoft Entra External ID for customers (`*.ciamlogin.com`).
    case ciam
}

/// The tenant an AAD authority names.
enum TenantKind: Sendable, Hashable {
    case common, organizations, consumers
    /// A tenant id (GUID) or a verified domain.
    case specific
}

/// The parsed, normalized form of an authority URL.
struct AuthorityDescriptor: Sendable, Hashable {
    var kind: AuthorityKind
    /// `https` (or `http` for a loopback host).
    var scheme: String
    /// The host, lower-cased, without the port.
    var host: String
    var port: Int?
    /// The tenant path segment as given (`common`, a GUID, `contoso.onmicrosoft.com`, ...).
    var tenant: String
    /// B2C only: the user-flow (policy) name.
    var policy: String?
    /// B2C only: whether the URL used the `/tfp/` form.
    var usesTfpPrefix: Bool

    /// `scheme://host[:port]`.
    var origin: String { port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)" }

    /// The path after the origin, without leading or trailing slash: `tenant`, `tfp/tenant/policy`, `tenant/policy`.
    var path: String {
        switch kind {
        case .b2c:
            let policy = policy ?? ""
            return usesTfpPrefix ? "tfp/\(tenant)/\(policy)" : "\(tenant)/\(policy)"
        case .aad, .ciam:
            return tenant
        }
    }

    /// The normalized authority URL, `scheme://host[:port]/path`.
    var urlString: String { "\(origin)/\(path)" }
    var url: URL { URL(string: urlString)! }

    /// The environment (host) that tokens are cached under before instance discovery supplies an alias.
    var environment: String { host }

    var tenantKind: TenantKind {
        switch tenant.lowercased() {
        case "common": return .common
        case "organizations": return .organizations
        case "consumers": return .consumers
        default: return .specific
        }
    }

    /// Whether the host is a loopback host (127.0.0.1, localhost, [::1]), which may use plain http.
    var isLoopback: Bool { Self.isLoopbackHost(host) }

    static func isLoopbackHost(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "127.0.0.1" || h == "localhost" || h == "::1" || h == "[::1]"
    }

    /// The same authority with another tenant (used to move `common`/`organizations` to an account's home tenant).
    func withTenant(_ newTenant: String) -> AuthorityDescriptor {
        var copy = self
        copy.tenant = newTenant
        return copy
    }

    /// Parses `url` as an authority of `kind` (or guesses the kind when nil).
    static func parse(_ url: URL, as requested: AuthorityKind?) throws -> AuthorityDescriptor {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(),
              var host = components.host?.lowercased(), !host.isEmpty else {
            throw MSALErrorInfo.invalidParameter("The authority URL \"\(url.absoluteString)\" is not a valid URL.")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if scheme != "https" && !(scheme == "http" && isLoopbackHost(host)) {
            throw MSALErrorInfo.invalidParameter(
                "The authority URL must use https (http is accepted only for loopback hosts): \(url.absoluteString)")
        }
        if components.query != nil || components.fragment != nil {
            throw MSALErrorInfo.invalidParameter("The authority URL must not carry a query or fragment: \(url.absoluteString)")
        }
        if components.user != nil || components.password != nil {
            throw MSALErrorInfo.invalidParameter("The authority URL must not carry user information.")
        }
        let hostForURL = host.contains(":") ? "[\(host)]" : host
        let segments = components.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for segment in segments where segment.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) {
            throw MSALErrorInfo.invalidParameter("The authority URL has an invalid path segment: \(segment)")
        }

        let kind = requested ?? guessKind(host: host, segments: segments)
        func make(_ kind: AuthorityKind, tenant: String, policy: String? = nil, tfp: Bool = false) -> AuthorityDescriptor {
            AuthorityDescriptor(kind: kind, scheme: scheme, host: hostForURL, port: components.port,
                                tenant: tenant, policy: policy, usesTfpPrefix: tfp)
        }
        switch kind {
        case .b2c:
            if segments.count == 3, segments[0].lowercased() == "tfp" {
                return make(.b2c, tenant: segments[1], policy: segments[2], tfp: true)
            }
            if segments.count == 2, segments[0].lowercased() != "tfp" {
                return make(.b2c, tenant: segments[0], policy: segments[1])
            }
            throw MSALErrorInfo.invalidParameter(
                "A B2C authority must have the form https://host/tfp/<tenant>/<policy> or https://host/<tenant>/<policy>: \(url.absoluteString)")
        case .aad:
            guard segments.count == 1 else {
                throw MSALErrorInfo.invalidParameter(
                    "An AAD authority must have the form https://host/<tenant>: \(url.absoluteString)")
            }
            if segments[0].lowercased() == "adfs" {
                throw MSALErrorInfo.invalidParameter("AD FS authority is not supported yet.")
            }
            return make(.aad, tenant: segments[0])
        case .ciam:
            switch segments.count {
            case 0:
                // https://<tenant>.ciamlogin.com → https://<tenant>.ciamlogin.com/<tenant>.onmicrosoft.com
                guard let sub = host.split(separator: ".").first, host.hasSuffix(".ciamlogin.com") else {
                    throw MSALErrorInfo.invalidParameter("A CIAM authority without a tenant must be https://<tenant>.ciamlogin.com")
                }
                return make(.ciam, tenant: "\(sub).onmicrosoft.com")
            case 1:
                return make(.ciam, tenant: segments[0])
            default:
                throw MSALErrorInfo.invalidParameter(
                    "A CIAM authority must have the form https://<tenant>.ciamlogin.com[/<tenant>]: \(url.absoluteString)")
            }
        }
    }

    private static func guessKind(host: String, segments: [String]) -> AuthorityKind {
        if segments.first?.lowercased() == "tfp" || host.hasSuffix(".b2clogin.com") { return .b2c }
        if segments.count == 2, segments[1].lowercased().hasPrefix("b2c_") { return .b2c }
        if host.hasSuffix(".ciamlogin.com") { return .ciam }
        return .aad
    }
}

/// An authority: the identity provider and tenant that issue tokens.
///
/// Create one with the initializer of the matching subclass (``MSALAADAuthority``, ``MSALB2CAuthority``,
/// ``MSALCIAMAuthority``), or with `MSALAuthority(url:)`, which recognises the kind from the URL and makes that
/// subclass, as MSAL for iOS/macOS's factory does (`MSALAuthority(url: ciamURL) as? MSALCIAMAuthority` succeeds).
/// Authorities are immutable and safe to share between tasks.
public class MSALAuthority: @unchecked Sendable, Hashable, CustomStringConvertible {
    let descriptor: AuthorityDescriptor

    /// The normalized authority URL.
    public var url: URL { descriptor.url }

    init(descriptor: AuthorityDescriptor) {
        self.descriptor = descriptor
    }

    /// The authority `url` names, as an instance of the matching subclass: ``MSALB2CAuthority`` for `/tfp/` and
    /// `*.b2clogin.com` URLs, ``MSALCIAMAuthority`` for `*.ciamlogin.com`, ``MSALAADAuthority`` otherwise (what
    /// MSAL for iOS/macOS's `authorityWithURL:error:` returns). `MSALAuthority(url:)` makes the same.
    ///
    /// Throws ``MSALInternalError/internalErrorInvalidParameter`` for a malformed or non-https URL.
    public static func authority(with url: URL) throws -> MSALAuthority {
        make(try AuthorityDescriptor.parse(url, as: nil))
    }

    /// Wraps a descriptor in the public class of its kind.
    static func make(_ descriptor: AuthorityDescriptor) -> MSALAuthority {
        switch descriptor.kind {
        case .aad: return MSALAADAuthority(descriptor: descriptor)
        case .b2c: return MSALB2CAuthority(descriptor: descriptor)
        case .ciam: return MSALCIAMAuthority(descriptor: descriptor)
        }
    }

    public static func == (lhs: MSALAuthority, rhs: MSALAuthority) -> Bool {
        lhs.descriptor.kind == rhs.descriptor.kind && lhs.descriptor.urlString.lowercased() == rhs.descriptor.urlString.lowercased()
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(descriptor.kind)
        hasher.combine(descriptor.urlString.lowercased())
    }

    public var description: String { descriptor.urlString }
}

/// What lets `MSALAuthority(url:)` make the subclass its URL names, as MSAL for iOS/macOS's
/// `authorityWithURL:error:` factory does: a class's initializer can only make its own class, a protocol extension's
/// can hand back any instance of `Self`. Not for conforming to elsewhere.
public protocol _MSALAuthorityFactory {}

extension MSALAuthority: _MSALAuthorityFactory {}

extension _MSALAuthorityFactory where Self: MSALAuthority {
    /// Creates the authority `url` names, as an instance of the matching subclass: ``MSALB2CAuthority`` for `/tfp/`
    /// and `*.b2clogin.com` URLs, ``MSALCIAMAuthority`` for `*.ciamlogin.com`, ``MSALAADAuthority`` otherwise.
    /// Throws ``MSALInternalError/internalErrorInvalidParameter`` for a malformed or non-https URL.
    public init(url: URL) throws {
        let made = try MSALAuthority.authority(with: url)
        guard let typed = made as? Self else {
            throw MSALErrorInfo.invalidParameter("\(url.absoluteString) is not a \(Self.self) authority.")
        }
        self = typed
    }
}
