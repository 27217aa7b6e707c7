import Foundation

/// The endpoints of an authority, from its OpenID Connect discovery document
/// (`{authority}/v2.0/.well-known/openid-configuration`).
struct OpenIDMetadata: Sendable, Hashable {
    var authorizationEndpoint: URL
    var tokenEndpoint: URL
    var deviceAuthorizationEndpoint: URL?
    var endSessionEndpoint: URL?
    /// The issuer id tokens must carry. For Entra's `common` and `organizations` it holds `{tenantid}`.
    var issuer: String
    var jwksURI: URL?
    /// `id_token_signing_alg_values_supported` (empty when absent).
    var idTokenSigningAlgorithms: [String] = []

    /// Parses a discovery document. Every endpoint must be https (http only on a loopback host); the
    /// authorization and token endpoints and the issuer are required. Throws
    /// ``MSALInternalError/internalErrorInvalidResponse`` otherwise.
    init(json data: Data) throws {
        guard let object = JSONValue.parseObject(data) else {
            throw Self.invalid("The OpenID configuration is not a JSON object.")
        }
        func endpoint(_ name: String, required: Bool) throws -> URL? {
            guard let text = object[name]?.stringValue, !text.isEmpty else {
                if required { throw Self.invalid("The OpenID configuration has no \(name).") }
                return nil
            }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
                  scheme == "https" || (scheme == "http" && AuthorityDescriptor.isLoopbackHost(host)) else {
                throw Self.invalid("The OpenID configuration's \(name) must be an https URL: \(text)")
            }
            return url
        }
        guard let authorization = try endpoint("authorization_endpoint", required: true),
              let token = try endpoint("token_endpoint", required: true) else {
            throw Self.invalid("The OpenID configuration has no authorization or token endpoint.")
        }
        guard let issuer = object["issuer"]?.stringValue, !issuer.isEmpty else {
            throw Self.invalid("The OpenID configuration has no issuer.")
        }
        self.authorizationEndpoint = authorization
        self.tokenEndpoint = token
        self.deviceAuthorizationEndpoint = try endpoint("device_authorization_endpoint", required: false)
        self.endSessionEndpoint = try endpoint("end_session_endpoint", required: false)
        self.jwksURI = try endpoint("jwks_uri", required: false)
        self.idTokenSigningAlgorithms = (object["id_token_signing_alg_values_supported"]?.arrayValue ?? [])
            .prefix(32).compactMap(\.stringValue)
        self.issuer = issuer
    }

    init(authorizationEndpoint: URL, tokenEndpoint: URL, deviceAuthorizationEndpoint: URL? = nil,
         endSessionEndpoint: URL? = nil, issuer: String, jwksURI: URL? = nil) {
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.issuer = issuer
        self.jwksURI = jwksURI
    }

    private static func invalid(_ message: String) -> MSALErrorInfo {
        .internal(.internalErrorInvalidResponse, message)
    }
}

/// One entry of instance discovery's `metadata`: a group of hosts that are aliases of one cloud.
struct InstanceDiscoveryEntry: Sendable, Hashable {
    /// The host to send requests to.
    var preferredNetwork: String
    /// The host to file cache entries under (`environment`).
    var preferredCache: String
    /// Every host of the cloud, lower-cased.
    var aliases: [String]
}

/// An authority whose endpoints are known: validated (or trusted), with its metadata and cache aliases.
struct ResolvedAuthority: Sendable, Hashable {
    var descriptor: AuthorityDescriptor
    var metadata: OpenIDMetadata
    /// The host cache entries are filed under: instance discovery's `preferred_cache`, or the host itself.
    var cacheEnvironment: String
    /// Every host that names the same cloud, including the authority's own host.
    var aliases: [String]
    /// The host instance discovery prefers for network requests, or the host itself.
    var preferredNetwork: String

    /// The issuer id tokens are checked against (may contain `{tenantid}`).
    var issuer: String { metadata.issuer }

    /// The tenant id the metadata names (the first path segment of its token endpoint): the cache realm of a
    /// domain-named tenant.
    var tenantId: String? { metadata.tokenEndpoint.pathComponents.dropFirst().first }
}
