import ArgumentParser
import Foundation
import MSAL

/// `msal token`'s options for a token the application gets as itself (client credentials).
struct AppTokenOptions: ParsableArguments {
    @Option(name: .customLong("client-secret"),
            help: ArgumentHelp("Get an app token with this client secret (env MSAL_CLIENT_SECRET; prefer the variable: "
                               + "arguments are visible to other users).", valueName: "secret"))
    var clientSecret: String?

    @Option(name: .customLong("certificate"),
            help: ArgumentHelp("Get an app token with the certificate credential in this PEM file (the RSA key and "
                               + "the certificate; env MSAL_CLIENT_CERTIFICATE).", valueName: "file"))
    var certificate: String?

    private func env(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    var resolvedSecret: String? { clientSecret ?? env("MSAL_CLIENT_SECRET") }
    var resolvedCertificate: String? { certificate ?? env("MSAL_CLIENT_CERTIFICATE") }

    /// Whether an app token is asked for.
    var isRequested: Bool { resolvedSecret != nil || resolvedCertificate != nil }

    func validate() throws {
        if clientSecret != nil && certificate != nil {
            throw ValidationError("Give either --client-secret or --certificate, not both.")
        }
    }

    /// The credential the options name.
    func credential() throws -> MSALClientCredential {
        if let path = resolvedCertificate {
            let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            guard let data = try? Data(contentsOf: file), data.count <= 1 << 20,
                  let pem = String(data: data, encoding: .utf8) else {
                throw CLIError(message: "The certificate file \(file.path) cannot be read (a PEM file of at most 1 MiB).")
            }
            return .certificate(try MSALCertificateCredential(pem: pem))
        }
        guard let secret = resolvedSecret else {
            throw CLIError(message: "No client credential: pass --client-secret or --certificate.")
        }
        return .secret(secret)
    }
}

extension ApplicationFactory {
    /// A confidential client application on the same authority, transport and cache file as the user commands.
    func makeConfidentialApplication(credential: MSALClientCredential) throws -> MSALConfidentialClientApplication {
        guard let clientId = options.resolvedClientId else {
            throw CLIError(message: "No client id: pass --client-id ID or set MSAL_CLIENT_ID.")
        }
        guard let url = URL(string: options.resolvedAuthority), url.scheme != nil, url.host != nil else {
            throw CLIError(message: "The authority \"\(options.resolvedAuthority)\" is not a URL.")
        }
        let configuration = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: credential,
                                                                    authority: try MSALAuthority(url: url))
        configuration.httpClient = try makeHTTPClient()
        configuration.cacheConfig.storage = cacheStorage()
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
