import Foundation
import MSALSupport

/// The managed identity protocols the emulator speaks.
package enum ManagedIdentityProtocol: String, Sendable, Equatable {
    /// App Service, Functions, Container Apps: `GET /msi/token` with `X-IDENTITY-HEADER`.
    case appService = "App Service"
    /// The instance metadata service of VMs: `GET /metadata/identity/oauth2/token` with `Metadata: true`.
    case imds = "IMDS"
    /// Azure Arc-enabled servers: IMDS's request, answered first with a key-file challenge.
    case azureArc = "Azure Arc"

    /// The query parameters that select a user-assigned identity, with what they name.
    var selectors: [(name: String, field: KeyPath<EmulatedManagedIdentity, String>)] {
        switch self {
        case .appService:
            [("client_id", \.clientId), ("object_id", \.objectId), ("principal_id", \.objectId), ("mi_res_id", \.resourceId)]
        case .imds, .azureArc:
            [("client_id", \.clientId), ("object_id", \.objectId), ("msi_res_id", \.resourceId), ("mi_res_id", \.resourceId)]
        }
    }
}

/// A managed identity endpoint's refusal, in the protocol's own error shape.
struct ManagedIdentityFailure: Error {
    var status: Int
    var error: String
    var message: String
    var headers: [(String, String)] = []

    /// App Service: `{"statusCode": 400, "message": "...", "correlationId": "..."}`; IMDS and Arc:
    /// `{"error": "...", "error_description": "..."}`.
    func response(_ kind: ManagedIdentityProtocol, _ request: EmulatorRequest) -> EmulatorResponse {
        switch kind {
        case .appService:
            .json(["statusCode": status, "message": message, "correlationId": request.correlationId], status: status, headers: headers)
        case .imds, .azureArc:
            .json(["error": error, "error_description": message], status: status, headers: headers)
        }
    }
}

extension EmulatorCore {
    /// How long an Azure Arc challenge key stays valid.
    static let arcKeyLifetime: TimeInterval = 600

    /// `GET` on a managed identity endpoint: checks the protocol's own requirements (App Service's identity header,
    /// IMDS's and Arc's `Metadata: true`, Arc's key-file handshake), selects the identity, and answers a token in the
    /// protocol's shape.
    func managedIdentityToken(_ kind: ManagedIdentityProtocol, _ request: EmulatorRequest) -> EmulatorResponse {
        do {
            try checkManagedIdentityRequest(kind, request)
            guard let resourceName = request.query["resource"]?.trimmingCharacters(in: .whitespaces), !resourceName.isEmpty else {
                throw kind == .appService
                    ? ManagedIdentityFailure(status: 400, error: "invalid_request", message: "The request is missing the required query parameter 'resource'.")
                    : ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Required audience parameter not specified")
            }
            let identity = try selectManagedIdentity(kind, request)
            let tenant = managedIdentityTenant(identity)
            guard let resource = appTokenResource(named: Self.trimmingSlash(resourceName)) else {
                let message = "AADSTS500011: The resource principal named \(resourceName.prefix(256)) was not found in the tenant named \(tenant.displayName). This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant."
                throw ManagedIdentityFailure(status: 400, error: "invalid_resource", message: message)
            }
            return try managedIdentityAnswer(kind, identity: identity, resource: resource, requested: resourceName, tenant: tenant, request)
        } catch let failure as ManagedIdentityFailure {
            return failure.response(kind, request)
        } catch {
            return ManagedIdentityFailure(status: 500, error: "server_error", message: "The token could not be issued.").response(kind, request)
        }
    }

    /// The header and `api-version` checks, and Arc's handshake.
    func checkManagedIdentityRequest(_ kind: ManagedIdentityProtocol, _ request: EmulatorRequest) throws {
        let version = request.query["api-version"] ?? ""
        switch kind {
        case .appService:
            guard let header = request.headers["x-identity-header"], !identityHeader.isEmpty,
                  EmulatorCore.constantTimeEquals(header, identityHeader) else {
                throw ManagedIdentityFailure(status: 401, error: "unauthorized", message: "The X-IDENTITY-HEADER header is missing or does not match the IDENTITY_HEADER of this environment.")
            }
            guard version == "2019-08-01" else {
                throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "The api-version '\(version.prefix(32))' is not supported; use 2019-08-01.")
            }
        case .imds, .azureArc:
            guard request.headers["metadata"]?.lowercased() == "true" else {
                throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Required metadata header not specified")
            }
            guard !version.isEmpty else {
                throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Required query variable 'api-version' is missing")
            }
            let oldest = kind == .imds ? "2018-02-01" : "2019-11-01"
            guard version.count == 10, version >= oldest, version.allSatisfy({ $0.isNumber || $0 == "-" }) else {
                throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Invalid api-version '\(version.prefix(32))'; the oldest supported is \(oldest).")
            }
            if kind == .azureArc { try checkArcAuthorization(request) }
        }
    }

    /// Arc's handshake: without `Authorization`, a 401 whose `WWW-Authenticate: Basic realm=` names a new key file
    /// (mode 0600) in the token directory; with `Authorization: Basic <that file's content>`, the request goes on.
    func checkArcAuthorization(_ request: EmulatorRequest) throws {
        pruneArcKeys()
        guard let header = request.headers["authorization"] else {
            let key = Base64URL.random(bytes: 32)
            guard let file = arcTokenDirectory?.appendingPathComponent(UUID().uuidString.lowercased() + ".key"),
                  (try? PrivateFiles.createNew(Data(key.utf8), at: file.path, mode: 0o600)) != nil else {
                throw ManagedIdentityFailure(status: 500, error: "server_error", message: "The challenge key file could not be written.")
            }
            arcKeys[key] = (file.path, now.addingTimeInterval(EmulatorCore.arcKeyLifetime))
            throw ManagedIdentityFailure(
                status: 401, error: "unauthorized_client", message: "Authorization is required: answer with the content of the key file the challenge names.",
                headers: [("WWW-Authenticate", "Basic realm=\(file.path)")]
            )
        }
        let presented = header.lowercased().hasPrefix("basic ") ? String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces) : ""
        guard let entry = arcKeys.first(where: { EmulatorCore.constantTimeEquals($0.key, presented) }), entry.value.expiresAt > now else {
            throw ManagedIdentityFailure(status: 401, error: "unauthorized_client", message: "The Authorization header does not hold the content of a current key file.")
        }
    }

    /// Forgets expired Arc keys and deletes their files; keeps at most 100.
    func pruneArcKeys() {
        let now = self.now
        var stale = arcKeys.filter { $0.value.expiresAt <= now }
        if arcKeys.count - stale.count >= 100 {
            let live = arcKeys.filter { $0.value.expiresAt > now }.sorted { $0.value.expiresAt < $1.value.expiresAt }
            for (key, value) in live.prefix(live.count - 99) { stale[key] = value }
        }
        for (key, value) in stale {
            try? FileManager.default.removeItem(atPath: value.path)
            arcKeys.removeValue(forKey: key)
        }
    }

    /// Deletes every challenge key file (when the emulator stops).
    package func removeArcKeys() {
        for value in arcKeys.values { try? FileManager.default.removeItem(atPath: value.path) }
        arcKeys.removeAll()
    }

    /// The identity a request names (`client_id`, `object_id`, a resource id), else the system-assigned identity,
    /// else the only user-assigned one (as IMDS does on a VM with a single identity).
    func selectManagedIdentity(_ kind: ManagedIdentityProtocol, _ request: EmulatorRequest) throws -> EmulatedManagedIdentity {
        let given = kind.selectors.compactMap { selector in request.query[selector.name].map { (selector, $0) } }
        let identities = config.managedIdentities
        guard given.count <= 1 else {
            throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Only one of \(kind.selectors.map(\.name).joined(separator: ", ")) may be given.")
        }
        if let (selector, value) = given.first {
            if let found = identities.first(where: { $0[keyPath: selector.field].lowercased() == value.lowercased() }) { return found }
            switch kind {
            case .appService:
                throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Unable to load the proper Managed Identity: no identity with \(selector.name) '\(value.prefix(256))' is assigned to this resource.")
            case .imds, .azureArc:
                throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Identity not found")
            }
        }
        if let system = identities.first(where: \.systemAssigned) { return system }
        if identities.count == 1, let only = identities.first { return only }
        switch kind {
        case .appService:
            throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Unable to load the proper Managed Identity: this resource has no system-assigned identity; name a user-assigned one.")
        case .imds, .azureArc:
            throw ManagedIdentityFailure(status: 400, error: "invalid_request", message: "Identity not found")
        }
    }

    func managedIdentityTenant(_ identity: EmulatedManagedIdentity) -> EmulatedTenant {
        if let id = identity.tenantId, let tenant = config.tenants.first(where: { $0.id == id.lowercased() }) { return tenant }
        return config.tenants.first { $0.kind == .organization } ?? config.tenants[0]
    }

    /// The token, signed like the emulator's other access tokens, in the protocol's answer.
    func managedIdentityAnswer(
        _ kind: ManagedIdentityProtocol, identity: EmulatedManagedIdentity, resource: AppTokenResource, requested: String,
        tenant: EmulatedTenant, _ request: EmulatorRequest
    ) throws -> EmulatorResponse {
        let iat = issueTime.stamp
        let lifetime = max(config.lifetimes.managedIdentityToken, 1)
        let tokenId = Base64URL.random(bytes: 16)
        recordIssue(tokenId)
        let exp = iat + lifetime
        var claims: [String: Any] = [
            "aud": resource.audience, "iss": issuer(baseURL: secureBaseURL(request), tenant: tenant),
            "iat": iat, "nbf": iat, "exp": exp, "aio": Base64URL.random(bytes: 24),
            "appid": identity.clientId, "appidacr": "2", "azp": identity.clientId, "azpacr": "2",
            "idp": "https://sts.windows.net/\(tenant.id)/", "idtyp": "app",
            "oid": identity.objectId, "sub": identity.objectId, "rh": "0.emulator",
            "tid": tenant.id, "uti": tokenId, "ver": "2.0", "xms_mirid": identity.resourceId,
        ]
        let roles = EmulatorCore.roles(identity.applicationPermissions, on: resource)
        if !roles.isEmpty { claims["roles"] = roles }
        let token = try keys.sign(claims)
        let headers = [("x-ms-request-id", UUID().uuidString.lowercased())]
        switch kind {
        case .appService:
            return .json([
                "access_token": token, "expires_on": String(exp), "resource": requested, "token_type": "Bearer",
                "client_id": identity.clientId,
            ], headers: headers)
        case .imds, .azureArc:
            var body: [String: Any] = [
                "access_token": token, "client_id": identity.clientId, "expires_in": String(lifetime), "expires_on": String(exp),
                "ext_expires_in": String(lifetime), "not_before": String(iat), "resource": requested, "token_type": "Bearer",
            ]
            if kind == .azureArc, !identity.systemAssigned {
                body["object_id"] = identity.objectId
                body["msi_res_id"] = identity.resourceId
            }
            return .json(body, headers: headers)
        }
    }

    /// The roles among `permissions` (`"{resource}/{Role}"`) that are on `resource`.
    static func roles(_ permissions: [String], on resource: AppTokenResource) -> [String] {
        permissions.compactMap { permission in
            let (resourceName, role) = RequestedScopes.split(permission)
            return resource.names.contains(resourceName.lowercased()) && !role.isEmpty ? role : nil
        }
    }

    static func trimmingSlash(_ text: String) -> String {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
