import Foundation

extension EmulatorCore {
    /// `GET /common/discovery/instance` (api-version 1.1).
    func instanceDiscovery(_ request: EmulatorRequest) -> EmulatorResponse {
        let host = request.host
        let hostName = host.split(separator: ":").first.map(String.init) ?? host
        let known = Set([host, hostName, "localhost", "127.0.0.1"].map { $0.lowercased() })
        guard let endpoint = request.query["authorization_endpoint"], let url = URL(string: endpoint),
              let endpointHost = url.host?.lowercased()
        else {
            return EntraError.missing("authorization_endpoint").response(request, clock: clock)
        }
        let endpointAuthority = url.port.map { "\(endpointHost):\($0)" } ?? endpointHost
        guard known.contains(endpointHost) || known.contains(endpointAuthority) else {
            return EntraError(error: "invalid_instance", code: 50049, message: "Unknown or invalid instance.").response(request, clock: clock)
        }
        let tenant = url.pathComponents.dropFirst().first ?? "common"
        // Cache entries are filed under the host name without the port, as MSAL for Python files them, so that
        // every SDK sharing a cache file sees the same accounts.
        return .json([
            "tenant_discovery_endpoint": "\(request.scheme)://\(endpointAuthority)/\(tenant)/v2.0/.well-known/openid-configuration",
            "api-version": "1.1",
            "metadata": [
                [
                    "preferred_network": endpointAuthority, "preferred_cache": endpointHost,
                    "aliases": Array(Set([endpointAuthority, endpointHost])).sorted(),
                ],
            ],
        ])
    }

    /// `GET /{tenant}/v2.0/.well-known/openid-configuration`.
    func openIDConfiguration(_ reference: TenantReference, _ request: EmulatorRequest) throws(EntraError) -> EmulatorResponse {
        let context = try resolveContext(tenantSegment: reference.segment, policyName: reference.policy, tfp: reference.tfp)
        let base = request.baseURL + context.pathPrefix
        let issuer: String
        switch context.audience {
        case .common, .organizations: issuer = "\(request.baseURL)/{tenantid}/v2.0"
        case .consumers: issuer = "\(request.baseURL)/\(EmulatorConfiguration.consumersTenantId)/v2.0"
        case .specific(let tenant): issuer = self.issuer(baseURL: request.baseURL, tenant: tenant)
        }
        var document: [String: Any] = [
            "issuer": issuer,
            "authorization_endpoint": "\(base)/oauth2/v2.0/authorize",
            "token_endpoint": "\(base)/oauth2/v2.0/token",
            "end_session_endpoint": "\(base)/oauth2/v2.0/logout",
            "jwks_uri": "\(base)/discovery/v2.0/keys",
            "response_modes_supported": ["query", "fragment", "form_post"],
            "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt", "client_secret_basic"],
            "code_challenge_methods_supported": ["plain", "S256"],
            "grant_types_supported": [
                "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code", "password",
                "client_credentials", EmulatorCore.jwtBearerGrant,
            ],
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "auth_time", "acr", "nonce", "preferred_username", "name", "tid", "ver", "at_hash", "c_hash", "email", "oid"],
            "request_uri_parameter_supported": false,
            "frontchannel_logout_supported": true,
            "http_logout_supported": true,
            "tenant_region_scope": "EU",
            "cloud_instance_name": "emulator.local",
            "cloud_graph_host_name": "graph.windows.net",
            "msgraph_host": request.host,
            "rbac_url": "\(request.baseURL)/rbac",
        ]
        if context.policy == nil {
            document["device_authorization_endpoint"] = "\(base)/oauth2/v2.0/devicecode"
            document["userinfo_endpoint"] = "\(request.baseURL)/oidc/userinfo"
            document["kerberos_endpoint"] = "\(base)/kerberos"
        }
        return .json(document)
    }

    /// `GET /{tenant}/discovery/v2.0/keys`.
    func jwks(_ reference: TenantReference, _ request: EmulatorRequest) throws(EntraError) -> EmulatorResponse {
        let context = try resolveContext(tenantSegment: reference.segment, policyName: reference.policy, tfp: reference.tfp)
        return .json(keys.jwks(issuer: context.tenant.map { issuer(baseURL: request.baseURL, tenant: $0) }))
    }
}
