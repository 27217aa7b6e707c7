import MSALSupport
import Crypto
import Foundation

/// The resource a client credentials request names with `{resource}/.default`.
struct AppTokenResource: Sendable {
    /// What the token's `aud` is: the resource's app id URI (or its client id when it has none).
    var audience: String
    /// Every name the resource is known by (app id URI, application id), lower-cased, to match permissions.
    var names: Set<String>
}

extension EmulatorCore {
    /// `grant_type=client_credentials`: an app-only token for one resource, carrying the app's application
    /// permissions on it as `roles`. Only confidential clients, only in a specific tenant, only `{resource}/.default`.
    func clientCredentialsGrant(_ client: ClientAuthentication, _ context: TenantContext, _ request: EmulatorRequest, popKeyId: String? = nil) throws -> [String: Any] {
        guard client.method != .none else { throw EntraError.credentialRequired }
        guard let tenant = context.tenant, tenant.kind != .consumers else {
            throw EntraError(error: "invalid_request", code: 50059, message: "No tenant-identifying information found in either the request or implied by any provided credentials.")
        }
        let resource = try clientCredentialsResource(request.form["scope"], tenant: tenant)
        let app = client.app
        let roles = EmulatorCore.roles(app.applicationPermissions, on: resource)
        let iat = issueTime.stamp
        let lifetime = config.lifetimes.accessToken
        let tokenId = Base64URL.random(bytes: 16)
        recordIssue(tokenId)
        let servicePrincipal = servicePrincipalId(clientId: app.clientId, tenantId: tenant.id)
        var claims: [String: Any] = [
            "aud": resource.audience, "iss": issuer(baseURL: request.baseURL, tenant: tenant),
            "iat": iat, "nbf": iat, "exp": iat + lifetime,
            "aio": Base64URL.random(bytes: 24), "app_displayname": app.displayName,
            "appid": app.clientId, "appidacr": client.authenticationClass,
            "azp": app.clientId, "azpacr": client.authenticationClass,
            "idp": "https://sts.windows.net/\(tenant.id)/", "idtyp": "app",
            "oid": servicePrincipal, "sub": servicePrincipal, "rh": "0.emulator",
            "tid": tenant.id, "uti": tokenId, "ver": "2.0",
        ]
        if !roles.isEmpty { claims["roles"] = roles }
        prune()
        // Entra answers an app-only request with exactly these four members: no scope, refresh token, id token or client_info.
        var body: [String: Any] = ["token_type": "Bearer", "expires_in": lifetime, "ext_expires_in": lifetime]
        bind(&claims, body: &body, keyId: popKeyId)
        body["access_token"] = try keys.sign(claims)
        return body
    }

    /// Validates the `scope` of a client credentials request: exactly one resource, every value `{resource}/.default`.
    func clientCredentialsResource(_ text: String?, tenant: EmulatedTenant) throws(EntraError) -> AppTokenResource {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw EntraError.missing("scope") }
        guard text.utf8.count <= 4096 else { throw EntraError.invalidScope("The scope parameter is too long.") }
        let values = text.split(whereSeparator: { $0 == " " || $0 == "+" || $0 == "\t" || $0 == "\n" }).prefix(64).map(String.init)
        var resources: [String] = []
        for value in values {
            guard value.lowercased().hasSuffix("/.default"), value.count > "/.default".count else {
                throw EntraError(
                    error: "invalid_scope", code: 1002012,
                    message: "The provided value for scope \(value.prefix(256)) is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI)."
                )
            }
            let resource = String(value.dropLast("/.default".count))
            if !resources.contains(where: { $0.lowercased() == resource.lowercased() }) { resources.append(resource) }
        }
        guard resources.count == 1, let name = resources.first else {
            throw EntraError(error: "invalid_scope", code: 28000, message: "Provided value for the input parameter scope is not valid because it contains more than one resource. Scope \(text.prefix(512)) is not valid.")
        }
        guard let resource = appTokenResource(named: name) else {
            throw EntraError(
                error: "invalid_resource", code: 500011,
                message: "The resource principal named \(name.prefix(256)) was not found in the tenant named \(tenant.displayName). This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant."
            )
        }
        return resource
    }

    /// Looks a resource up by app id URI or application id, among the APIs and then the app registrations.
    func appTokenResource(named name: String) -> AppTokenResource? {
        let lower = name.lowercased()
        // A resource URI names its API with or without a trailing slash (`https://management.core.windows.net/`).
        func trimmed(_ text: String) -> String { text.hasSuffix("/") ? String(text.dropLast()) : text }
        if let api = config.apis.first(where: {
            $0.identifier.lowercased() == lower || trimmed($0.identifier.lowercased()) == trimmed(lower) || $0.appId.lowercased() == lower
        }) {
            return AppTokenResource(audience: api.identifier, names: [api.identifier.lowercased(), api.appId.lowercased()])
        }
        if let app = config.applications.first(where: { $0.clientId.lowercased() == lower || "api://\($0.clientId.lowercased())" == lower }) {
            let uri = "api://\(app.clientId)"
            return AppTokenResource(audience: lower == app.clientId.lowercased() ? app.clientId : uri, names: [app.clientId.lowercased(), uri.lowercased()])
        }
        return nil
    }

    /// The object id of an app's service principal in a tenant: stable, derived from the two ids.
    func servicePrincipalId(clientId: String, tenantId: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("service-principal|\(clientId.lowercased())|\(tenantId)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
