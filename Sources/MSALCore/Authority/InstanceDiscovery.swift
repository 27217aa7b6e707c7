import Foundation

/// Instance discovery (`/common/discovery/instance`, api-version 1.1): validates an Entra ID host and returns the
/// groups of host aliases of every cloud.
enum InstanceDiscovery {
    /// Microsoft's sign-in hosts, which answer instance discovery themselves.
    static let wellKnownHosts: Set<String> = [
        "login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net",
        "login.chinacloudapi.cn", "login.partner.microsoftonline.cn",
        "login.microsoftonline.de",
        "login-us.microsoftonline.com", "login.microsoftonline.us", "login.usgovcloudapi.net",
        "login.sovcloud-identity.fr", "login.sovcloud-identity.de", "login.sovcloud-identity.sg",
    ]

    /// Where discovery is asked when the authority's host is neither well known nor loopback.
    static let defaultDiscoveryOrigin = "https://login.microsoftonline.com"

    /// The origin to ask: the authority's own for a well-known or loopback host (a local emulator serves discovery
    /// itself), else the public cloud.
    static func discoveryOrigin(for authority: AuthorityDescriptor) -> String {
        if wellKnownHosts.contains(authority.host.lowercased()) || authority.isLoopback { return authority.origin }
        return defaultDiscoveryOrigin
    }

    /// `GET {discoveryOrigin}/common/discovery/instance?api-version=1.1&authorization_endpoint={origin}/{tenant}/oauth2/v2.0/authorize`.
    static func url(for authority: AuthorityDescriptor) -> URL {
        var components = URLComponents(string: discoveryOrigin(for: authority) + "/common/discovery/instance")!
        components.queryItems = [
            URLQueryItem(name: "api-version", value: "1.1"),
            URLQueryItem(name: "authorization_endpoint", value: "\(authority.origin)/\(authority.tenant)/oauth2/v2.0/authorize"),
        ]
        return components.url!
    }

    /// The outcome of parsing a discovery answer.
    enum Answer: Sendable, Equatable {
        /// The host is valid; `entries` are the alias groups.
        case valid(entries: [InstanceDiscoveryEntry])
        /// The server said the instance is not valid (`invalid_instance` or another OAuth error).
        case invalid(error: String, description: String?)
    }

    /// Parses the body of a non-5xx discovery response.
    static func parse(statusCode: Int, body: Data) throws -> Answer {
        guard let object = JSONValue.parseObject(body) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The instance discovery response (HTTP \(statusCode)) is not a JSON object.")
        }
        if let error = object["error"]?.stringValue {
            return .invalid(error: error, description: object["error_description"]?.stringValue)
        }
        guard statusCode == 200 else {
            throw MSALErrorInfo.internal(.internalErrorUnexpectedHttpResponse,
                                         "Instance discovery answered HTTP \(statusCode).")
        }
        guard object["tenant_discovery_endpoint"]?.stringValue != nil else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The instance discovery response has no tenant_discovery_endpoint.")
        }
        var entries: [InstanceDiscoveryEntry] = []
        for item in object["metadata"]?.arrayValue ?? [] {
            guard let entry = item.objectValue else { continue }
            let aliases = (entry["aliases"]?.arrayValue ?? []).compactMap { $0.stringValue?.lowercased() }
            guard !aliases.isEmpty else { continue }
            let network = entry["preferred_network"]?.stringValue?.lowercased() ?? aliases[0]
            let cache = entry["preferred_cache"]?.stringValue?.lowercased() ?? network
            entries.append(InstanceDiscoveryEntry(preferredNetwork: network, preferredCache: cache, aliases: aliases))
        }
        return .valid(entries: entries)
    }
}
