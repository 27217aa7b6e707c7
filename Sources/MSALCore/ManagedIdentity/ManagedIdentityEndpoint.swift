import Foundation

/// The request one managed-identity source expects: pure, built from the environment, tested without I/O.
struct ManagedIdentityEndpoint: Sendable, Equatable {
    var source: MSALManagedIdentitySource
    var method: String
    var url: URL
    var headers: [String: String]
    var body: Data?

    /// The IMDS address when `AZURE_POD_IDENTITY_AUTHORITY_HOST` does not name another.
    static let imdsHost = "http://169.254.169.254"

    /// The source the environment names (Service Fabric, App Service, MSI endpoint, Arc, else IMDS).
    static func source(in environment: [String: String]) -> MSALManagedIdentitySource {
        func has(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        if has("IDENTITY_ENDPOINT") && has("IDENTITY_HEADER") {
            return has("IDENTITY_SERVER_THUMBPRINT") ? .serviceFabric : .appService
        }
        if has("MSI_ENDPOINT") { return .msiEndpoint }
        if has("IDENTITY_ENDPOINT") && has("IMDS_ENDPOINT") { return .azureArc }
        return .imds
    }

    /// The token request for `resource` and `identity` from the source the environment names. Throws
    /// ``MSALInternalError/internalErrorInvalidParameter`` for an endpoint that is not an http(s) URL, and for a
    /// user-assigned identity on a source that cannot select one.
    static func make(resource: String, identity: MSALManagedIdentityId, environment: [String: String]) throws -> Self {
        let source = source(in: environment)
        func url(_ name: String, _ fallback: String? = nil) throws -> URL {
            let text = environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback ?? ""
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host != nil else {
                throw MSALErrorInfo.invalidParameter("The managed identity endpoint \(name) is not an http(s) URL.")
            }
            return url
        }
        switch source {
        case .appService, .serviceFabric:
            let endpoint = try url("IDENTITY_ENDPOINT")
            var query = [("api-version", source == .appService ? "2019-08-01" : "2019-07-01-preview"), ("resource", resource)]
            if let selector = selector(identity, resourceIdName: "mi_res_id") {
                guard source == .appService else {
                    throw MSALErrorInfo.invalidParameter(
                        "Service Fabric sets its managed identity in the cluster; a user-assigned identity cannot be chosen here.")
                }
                query.append(selector)
            }
            let header = environment["IDENTITY_HEADER"] ?? ""
            return Self(source: source, method: "GET", url: FormEncoding.url(endpoint, adding: query),
                        headers: source == .appService ? ["X-IDENTITY-HEADER": header, "Metadata": "true"] : ["secret": header],
                        body: nil)
        case .msiEndpoint:
            let endpoint = try url("MSI_ENDPOINT")
            var form = [("resource", resource)]
            if let (kind, value) = identity.userAssigned {
                guard kind == .clientId else {
                    throw MSALErrorInfo.invalidParameter("The MSI endpoint selects a user-assigned identity by client id only.")
                }
                form.append(("client_id", value))
            }
            var headers = ["Metadata": "true", "Content-Type": "application/x-www-form-urlencoded"]
            if let secret = environment["MSI_SECRET"], !secret.isEmpty { headers["secret"] = secret }
            return Self(source: source, method: "POST", url: endpoint, headers: headers,
                        body: Data(FormEncoding.encode(form).utf8))
        case .azureArc:
            let endpoint = try url("IDENTITY_ENDPOINT")
            var query = [("api-version", "2020-06-01"), ("resource", resource)]
            if let selector = selector(identity, resourceIdName: "msi_res_id") { query.append(selector) }
            return Self(source: source, method: "GET", url: FormEncoding.url(endpoint, adding: query),
                        headers: ["Metadata": "true"], body: nil)
        case .imds:
            let host = try url("AZURE_POD_IDENTITY_AUTHORITY_HOST", imdsHost)
            let endpoint = host.appendingPathComponent("metadata/identity/oauth2/token")
            var query = [("api-version", "2018-02-01"), ("resource", resource)]
            if let selector = selector(identity, resourceIdName: "msi_res_id") { query.append(selector) }
            return Self(source: source, method: "GET", url: FormEncoding.url(endpoint, adding: query),
                        headers: ["Metadata": "true"], body: nil)
        }
    }

    /// The query parameter that selects a user-assigned identity.
    private static func selector(_ identity: MSALManagedIdentityId, resourceIdName: String) -> (String, String)? {
        guard let (kind, value) = identity.userAssigned else { return nil }
        switch kind {
        case .clientId: return ("client_id", value)
        case .objectId: return ("object_id", value)
        case .resourceId: return (resourceIdName, value)
        }
    }

    /// The resource a request names: `resource` itself, or the resource of a single `{resource}/.default` scope.
    static func resource(fromScopes scopes: [String]) -> String? {
        guard scopes.count == 1, let scope = scopes.first else { return nil }
        if scope.hasSuffix("/.default") { return String(scope.dropLast("/.default".count)) }
        return nil
    }
}
