import ArgumentParser
import Foundation
import MSALSupport
import MSAL

/// `msal token`'s options for a token the application gets as itself (client credentials).
struct AppTokenOptions: ParsableArguments {
    @Option(name: .customLong("client-secret"),
            help: ArgumentHelp("Get an app token with this client secret (env MSAL_CLIENT_SECRET; prefer the variable: "
                               + "arguments are visible to other users).", valueName: "secret"))
    var clientSecret: String?

    @Option(name: .customLong("certificate"),
            help: ArgumentHelp("Get an app token with the certificate credential in this file: PEM (the RSA key and "
                               + "the certificate) or PKCS#12 (.pfx, .p12; its password in env "
                               + "MSAL_CLIENT_CERTIFICATE_PASSWORD); env MSAL_CLIENT_CERTIFICATE.", valueName: "file"))
    var certificate: String?

    @Option(name: .customLong("managed-identity"),
            help: ArgumentHelp("Get a token for this machine's managed identity: `system`, a user-assigned identity's "
                               + "client id, `object:<id>` or `resource:<id>`.", valueName: "identity"))
    var managedIdentity: String?

    private func env(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    var resolvedSecret: String? { clientSecret ?? env("MSAL_CLIENT_SECRET") }
    var resolvedCertificate: String? { certificate ?? env("MSAL_CLIENT_CERTIFICATE") }

    /// Whether an app token is asked for.
    var isRequested: Bool { resolvedSecret != nil || resolvedCertificate != nil }

    func validate() throws {
        if [clientSecret != nil, certificate != nil, managedIdentity != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Give one of --client-secret, --certificate and --managed-identity.")
        }
        if let managedIdentity, managedIdentityId == nil {
            throw ValidationError("--managed-identity \"\(managedIdentity)\" is not `system`, a client id, `object:<id>` or `resource:<id>`.")
        }
    }

    /// The identity `--managed-identity` names.
    var managedIdentityId: MSALManagedIdentityId? {
        guard let value = managedIdentity?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.lowercased() == "system" { return .systemAssigned }
        if value.hasPrefix("object:") { return value.count > 7 ? .userAssignedObjectId(String(value.dropFirst(7))) : nil }
        if value.hasPrefix("resource:") { return value.count > 9 ? .userAssignedResourceId(String(value.dropFirst(9))) : nil }
        return .userAssignedClientId(value)
    }

    /// The credential the options name.
    func credential() throws -> MSALClientCredential {
        if let path = resolvedCertificate {
            let file = URL(fileURLWithPath: HomePath.expand(path))
            guard let data = try? OutsideFile.read(file.path, limit: 1 << 20) else {
                throw CLIError(message: "The certificate file \(file.path) cannot be read (a PEM or PKCS#12 file of at most 1 MiB).")
            }
            return .certificate(try MSALCertificateCredential(contentsOf: data, password: env("MSAL_CLIENT_CERTIFICATE_PASSWORD")))
        }
        guard let secret = resolvedSecret else {
            throw CLIError(message: "No client credential: pass --client-secret or --certificate.")
        }
        return .secret(secret)
    }
}

extension ApplicationFactory {
    /// A managed identity token for the resource of `--scopes` (one `/.default`), default Microsoft Graph.
    func managedIdentityToken(_ identity: MSALManagedIdentityId, scopes: [String]?, forceRefresh: Bool) async throws
        -> MSALAppTokenResult {
        let scopes = scopes ?? ["https://graph.microsoft.com/.default"]
        guard let parameters = MSALManagedIdentityParameters(scopes: scopes) else {
            throw CLIError(message: "A managed identity token is for one resource: pass --scopes <resource>/.default.")
        }
        parameters.forceRefresh = forceRefresh
        let configuration = MSALManagedIdentityConfig()
        configuration.httpClient = try makeHTTPClient()
        configuration.cacheStorage = cache.storage
        let application = try MSALManagedIdentityApplication(managedIdentity: identity, configuration: configuration)
        return try await application.acquireTokenForManagedIdentity(with: parameters)
    }

    /// A confidential client application on the same authority, transport and cache file as the user commands.
    func makeConfidentialApplication(credential: MSALClientCredential) throws -> MSALConfidentialClientApplication {
        guard let clientId = options.resolvedClientId else {
            throw CLIError(message: "No client id: pass --client-id ID or set MSAL_CLIENT_ID.", exitCode: CLIExit.usage)
        }
        guard let url = URL(string: options.resolvedAuthority), url.scheme != nil, url.host != nil else {
            throw CLIError(message: "The authority \"\(options.resolvedAuthority)\" is not a URL.")
        }
        let configuration = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: credential,
                                                                    authority: try MSALAuthority(url: url))
        configuration.httpClient = try makeHTTPClient()
        configuration.cacheConfig.storage = cache.storage
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    /// An app token for `--scopes` (default `https://graph.microsoft.com/.default`).
    func appToken(credential: MSALClientCredential, scopes: [String]?, forceRefresh: Bool) async throws -> MSALAppTokenResult {
        let application = try makeConfidentialApplication(credential: credential)
        let parameters = MSALClientCredentialParameters(scopes: scopes ?? ["https://graph.microsoft.com/.default"])
        parameters.forceRefresh = forceRefresh
        return try await application.acquireTokenForClient(with: parameters)
    }
}
