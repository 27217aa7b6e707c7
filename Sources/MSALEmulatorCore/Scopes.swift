import Foundation

/// A requested `scope` parameter, split into OpenID Connect scopes and API scopes.
struct RequestedScopes: Sendable, Equatable {
    static let oidcNames: Set<String> = ["openid", "profile", "email", "offline_access"]

    /// `openid`, `profile`, `email`, `offline_access` as asked.
    var oidc: Set<String> = []
    /// API scopes in full form (`https://graph.microsoft.com/User.Read`), in request order; `.default` expanded later.
    var full: [String] = []
    /// The resource the first API scope belongs to (what the access token is for).
    var primaryResource: String?
    /// Whether a `/.default` scope was asked for.
    var usesDefault = false

    var resources: [String] {
        var seen: [String] = []
        for scope in full {
            let resource = RequestedScopes.split(scope).resource
            if !seen.contains(resource) { seen.append(resource) }
        }
        return seen
    }

    /// Splits a full scope into resource and name.
    static func split(_ full: String) -> (resource: String, name: String) {
        guard let slash = full.lastIndex(of: "/") else { return ("", full) }
        return (String(full[..<slash]), String(full[full.index(after: slash)...]))
    }

    /// Parses and validates a `scope` parameter against the configured APIs.
    static func parse(_ text: String?, apis: [EmulatedAPI], applications: [EmulatedApplication], clientId: String) throws(EntraError) -> RequestedScopes {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw EntraError.missing("scope") }
        guard text.utf8.count <= 4096 else { throw EntraError.invalidScope("The scope parameter is too long.") }
        var result = RequestedScopes()
        for token in text.split(whereSeparator: { $0 == " " || $0 == "+" || $0 == "\t" || $0 == "\n" }).prefix(64) {
            let scope = String(token)
            if oidcNames.contains(scope.lowercased()) {
                result.oidc.insert(scope.lowercased())
                continue
            }
            if scope == clientId {
                // An app asking for a token for itself (B2C apps do this).
                result.full.append("\(clientId)/.default")
                result.primaryResource = result.primaryResource ?? clientId
                continue
            }
            let api: EmulatedAPI
            let name: String
            if scope.contains("/") {
                let (resource, scopeName) = split(scope)
                guard let found = apis.first(where: { $0.names(resource) })
                    ?? applications.first(where: { $0.clientId == resource.lowercased() }).map({ EmulatedAPI(identifier: $0.clientId, appId: $0.clientId, scopes: []) })
                else {
                    throw EntraError(error: "invalid_resource", code: 500011, message: "The resource principal named \(resource) was not found in the tenant.")
                }
                api = found
                name = scopeName
            } else {
                guard let graph = apis.first(where: { $0.identifier == EmulatorConfiguration.graphResource }) else {
                    throw EntraError.invalidScope("The scope '\(scope)' is not valid.")
                }
                api = graph
                name = scope
            }
            if name == ".default" {
                result.usesDefault = true
            } else if let app = applications.first(where: { $0.clientId == clientId }), app.preauthorizedOnly {
                throw EntraError.notPreauthorized(clientId: clientId, resourceAppId: api.appId)
            } else if !api.scopes.contains(where: { $0.lowercased() == name.lowercased() }) {
                throw EntraError(error: "invalid_scope", code: 650053, message: "The application asked for scope '\(name)' that doesn't exist on the resource '\(api.appId)'.")
            }
            let canonical = api.scopes.first { $0.lowercased() == name.lowercased() } ?? name
            let fullName = "\(api.identifier)/\(canonical)"
            if !result.full.contains(fullName) { result.full.append(fullName) }
            result.primaryResource = result.primaryResource ?? api.identifier
        }
        return result
    }
}

extension EmulatedAPI {
    /// Whether `resource` names this API: its identifier (a trailing slash or not, any case), its application id, or
    /// for Azure Resource Manager any of its service principal names (`https://management.azure.com` as much as
    /// `https://management.core.windows.net/`), which Entra resolves in every tenant.
    func names(_ resource: String) -> Bool {
        func normalized(_ text: String) -> String {
            var text = text.lowercased()
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        let wanted = normalized(resource)
        if normalized(identifier) == wanted || appId == wanted { return true }
        return appId == EmulatorConfiguration.resourceManagerAppId
            && EmulatorConfiguration.resourceManagerAudiences.contains { normalized($0) == wanted }
    }

    /// How a scope of this API appears in `scope` and `scp`: Graph uses short names, other APIs full names in `scope`.
    func responseScope(_ name: String) -> String {
        identifier == EmulatorConfiguration.graphResource ? name : "\(identifier)/\(name)"
    }
}
