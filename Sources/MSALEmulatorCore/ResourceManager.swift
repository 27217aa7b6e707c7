import Crypto
import Foundation

/// The part of Azure Resource Manager (ARM) that signing in with the Azure CLI uses: the cloud's endpoint discovery
/// (`GET /metadata/endpoints`), the caller's tenants (`GET /tenants`) and subscriptions (`GET /subscriptions`,
/// `GET /subscriptions/{id}`), with bearer tokens for ARM's audience checked. One demo subscription per organization
/// tenant; nothing else of ARM (no resource groups, deployments or role assignments).
extension EmulatorCore {
    /// `GET /metadata/endpoints`: the endpoints of this cloud, as `az cloud register` discovers them. The login
    /// endpoint and resource manager are this emulator's HTTPS address, whichever listener was asked.
    func resourceManagerEndpoints(_ request: EmulatorRequest) -> EmulatorResponse {
        let base = secureBaseURL(request)
        return .json([
            "name": "MSALEmulator",
            "portal": base + "/",
            "resourceManager": base + "/",
            "authentication": [
                "loginEndpoint": base + "/",
                "audiences": [EmulatorConfiguration.resourceManagerResource, "https://management.azure.com/"],
                "tenant": "common",
                "identityProvider": "AAD",
            ],
            "microsoftGraphResourceId": EmulatorConfiguration.graphResource + "/",
            "graphAudience": EmulatorConfiguration.graphResource + "/",
            "graph": base + "/",
            "suffixes": [String: String](),
        ])
    }

    /// `GET /tenants`: the tenants the caller belongs to (a user: home and guest organization tenants; an
    /// application: the token's tenant).
    func resourceManagerTenants(_ request: EmulatorRequest) -> EmulatorResponse {
        let caller: ResourceManagerCaller
        switch resourceManagerCaller(request) {
        case .success(let found): caller = found
        case .failure(let rejection): return rejection.response
        }
        let tenants = caller.tenantIds.compactMap { id in config.tenants.first { $0.id == id && $0.kind == .organization } }
        return .json(["value": tenants.map(tenantDescription)])
    }

    /// `GET /subscriptions`: the subscriptions of the token's tenant the caller can see (the tenant's demo
    /// subscription).
    func resourceManagerSubscriptions(_ request: EmulatorRequest) -> EmulatorResponse {
        let caller: ResourceManagerCaller
        switch resourceManagerCaller(request) {
        case .success(let found): caller = found
        case .failure(let rejection): return rejection.response
        }
        return .json(["value": subscriptions(visibleTo: caller).map(subscriptionDescription)])
    }

    /// `GET /subscriptions/{id}`.
    func resourceManagerSubscription(_ id: String, _ request: EmulatorRequest) -> EmulatorResponse {
        let caller: ResourceManagerCaller
        switch resourceManagerCaller(request) {
        case .success(let found): caller = found
        case .failure(let rejection): return rejection.response
        }
        guard let subscription = subscriptions(visibleTo: caller).first(where: { $0.id == id.lowercased() }) else {
            return resourceManagerError(404, "SubscriptionNotFound", "The subscription '\(id.prefix(64))' could not be found.")
        }
        return .json(subscriptionDescription(subscription))
    }

    /// The demo subscription of each organization tenant: the one the demo managed identities' resource ids name
    /// for the demo tenant, a stable derived id for any other.
    func subscription(of tenant: EmulatedTenant) -> DemoSubscription {
        if tenant.id == EmulatorConfiguration.demoTenantId {
            return DemoSubscription(id: EmulatorConfiguration.demoSubscriptionId, name: "Contoso Demo", tenantId: tenant.id)
        }
        var bytes = Array(SHA256.hash(data: Data("subscription|\(tenant.id)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array(bytes.map { String(format: "%02x", $0) }.joined())
        let id = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
        return DemoSubscription(id: id, name: "\(tenant.displayName) Demo", tenantId: tenant.id)
    }

    private func subscriptions(visibleTo caller: ResourceManagerCaller) -> [DemoSubscription] {
        guard caller.tenantIds.contains(caller.tokenTenantId),
              let tenant = config.tenants.first(where: { $0.id == caller.tokenTenantId && $0.kind == .organization })
        else { return [] }
        return [subscription(of: tenant)]
    }

    private func tenantDescription(_ tenant: EmulatedTenant) -> [String: Any] {
        let domain = tenant.domains.first ?? "\(tenant.id).onmicrosoft.com"
        return [
            "id": "/tenants/\(tenant.id)", "tenantId": tenant.id, "tenantCategory": "Home", "countryCode": "US",
            "displayName": tenant.displayName, "domains": tenant.domains, "defaultDomain": domain, "tenantType": "AAD",
        ]
    }

    private func subscriptionDescription(_ subscription: DemoSubscription) -> [String: Any] {
        [
            "id": "/subscriptions/\(subscription.id)", "subscriptionId": subscription.id, "tenantId": subscription.tenantId,
            "displayName": subscription.name, "state": "Enabled", "authorizationSource": "RoleBased",
            "managedByTenants": [Any](), "tags": [String: String](),
            "subscriptionPolicies": [
                "locationPlacementId": "Public_2014-09-01", "quotaId": "PayAsYouGo_2014-09-01", "spendingLimit": "Off",
            ],
        ]
    }

    /// Checks the bearer token of an ARM request: signature, ARM's audience, lifetime, and who it speaks for.
    func resourceManagerCaller(_ request: EmulatorRequest) -> Result<ResourceManagerCaller, ResourceManagerRejection> {
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else {
            return unauthorized("AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let claims = keys.verify(token) else {
            return unauthorized("InvalidAuthenticationToken", "The access token is invalid: malformed, or its signature is not valid.")
        }
        let audience = (claims["aud"] as? String ?? "").lowercased()
        guard EmulatorConfiguration.resourceManagerAudiences.contains(audience) else {
            return unauthorized("InvalidAuthenticationTokenAudience", "The access token has been obtained for the wrong audience or resource '\(audience.prefix(128))'.")
        }
        guard let exp = claims["exp"] as? Int, isCurrent(exp: Double(exp), nbf: nil, tokenId: claims["uti"] as? String) else {
            return unauthorized("ExpiredAuthenticationToken", "The access token expiry UTC time is earlier than the current UTC time.")
        }
        let tenantId = claims["tid"] as? String ?? ""
        if claims["idtyp"] as? String != "app", let objectId = claims["oid"] as? String, let user = user(id: objectId) {
            return .success(ResourceManagerCaller(tokenTenantId: tenantId, tenantIds: [user.homeTenantId] + user.guestOf))
        }
        // An application or a managed identity: the token's tenant.
        return .success(ResourceManagerCaller(tokenTenantId: tenantId, tenantIds: [tenantId]))
    }

    private func unauthorized(_ code: String, _ message: String) -> Result<ResourceManagerCaller, ResourceManagerRejection> {
        .failure(ResourceManagerRejection(response: resourceManagerError(401, code, message)))
    }

    /// An ARM error body (`{"error": {"code", "message"}}`), with a Bearer challenge for 401s.
    func resourceManagerError(_ status: Int, _ code: String, _ message: String) -> EmulatorResponse {
        var headers: [(String, String)] = [("x-ms-failure-cause", "gateway")]
        if status == 401 {
            headers.append(("WWW-Authenticate", "Bearer authorization_uri=\"https://login.windows.net/\", error=\"invalid_token\", error_description=\"\(message.replacingOccurrences(of: "\"", with: "'"))\""))
        }
        return .json(["error": ["code": code, "message": message]], status: status, headers: headers)
    }
}

/// Who calls the ARM stand-in: the tenant its token was issued in, and the tenants it belongs to.
struct ResourceManagerCaller: Sendable {
    var tokenTenantId: String
    var tenantIds: [String]
}

/// A refused ARM request: the error response to send.
struct ResourceManagerRejection: Error {
    var response: EmulatorResponse
}

/// A tenant's demo subscription.
struct DemoSubscription: Sendable {
    var id: String
    var name: String
    var tenantId: String
}
