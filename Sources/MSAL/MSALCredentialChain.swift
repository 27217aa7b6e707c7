public import Foundation

/// A token for an app that runs in several places — a developer's machine, CI, a Kubernetes pod, an Azure VM —
/// without code for each: the first credential that works, in this order (narrow it with `steps`):
///
/// 1. ``Step/environment``: `AZURE_TENANT_ID`, `AZURE_CLIENT_ID` and `AZURE_CLIENT_SECRET`, or
///    `AZURE_CLIENT_CERTIFICATE_PATH` (a PEM file with the key and certificate, or a PKCS#12 file with
///    `AZURE_CLIENT_CERTIFICATE_PASSWORD`), as a confidential client;
/// 2. ``Step/workloadIdentity``: `AZURE_TENANT_ID`, `AZURE_CLIENT_ID` and `AZURE_FEDERATED_TOKEN_FILE`;
/// 3. ``Step/managedIdentity``: the resource's managed identity (user-assigned when `AZURE_CLIENT_ID` is set),
///    from the source the environment names; on the IMDS default a one-second probe first, so that a machine off
///    Azure moves on at once;
/// 4. ``Step/msalAccount``: the account signed in with the `msal` tool, silently, from its token cache, with the
///    settings `msal` itself would use: `MSAL_CLIENT_ID`, `MSAL_AUTHORITY`, `MSAL_CACHE`, `MSAL_CA_FILE` and
///    `MSAL_ACCOUNT`, else its configuration file's profile (`MSAL_PROFILE` or the default one), else what `msal
///    login` recorded; its default cache is the protected one `msal` uses;
/// 5. ``Step/azureCLI``: the Azure CLI's sign-in: a valid token in its own cache (`AZURE_CONFIG_DIR`, else
///    `~/.azure`; read, never written) for its default subscription's account, else
///    `az account get-access-token --scope ...` with a time limit. Its refresh token is never redeemed here.
///
/// ```swift
/// let chain = MSALCredentialChain()
/// let token = try await chain.token(scopes: ["https://management.azure.com/.default"])
/// print(token.step)   // which credential answered
/// ```
///
/// When every step fails, the error (`MSALInternalError/internalErrorInvalidParameter` when none applied, else
/// the last step's) says why each one was skipped. No secret appears in it.
public struct MSALCredentialChain: Sendable {
    /// A credential the chain tries.
    public enum Step: String, Sendable, CaseIterable {
        case environment
        case workloadIdentity = "workload identity"
        case managedIdentity = "managed identity"
        case msalAccount = "msal account"
        case azureCLI = "azure cli"
    }

    /// A token from the chain.
    public struct Token: Sendable, CustomStringConvertible {
        /// The access token.
        public let accessToken: String
        /// When it expires.
        public let expiresOn: Date?
        /// The step that answered.
        public let step: Step
        /// The value for the HTTP `Authorization` header.
        public var authorizationHeader: String { "Bearer \(accessToken)" }
        public var description: String { "MSALCredentialChain.Token(step: \(step.rawValue), accessToken: <redacted>)" }
    }

    let steps: [Step]
    let environment: [String: String]
    let httpClient: (any MSALHTTPClient)?
    let authorityHost: String
    let managedIdentityProbeTimeout: TimeInterval
    /// How long `az account get-access-token` may take.
    let azureCLITimeout: TimeInterval

    /// A chain over `steps`, reading `environment`. `httpClient` nil selects the platform's transport;
    /// `authorityHost` is the cloud of the confidential steps (`AZURE_AUTHORITY_HOST` when set).
    public init(steps: [Step] = Step.allCases, environment: [String: String] = ProcessInfo.processInfo.environment,
                httpClient: (any MSALHTTPClient)? = nil, authorityHost: String? = nil) {
        self.init(steps: steps, environment: environment, httpClient: httpClient, authorityHost: authorityHost,
                  managedIdentityProbeTimeout: 1)
    }

    init(steps: [Step], environment: [String: String], httpClient: (any MSALHTTPClient)?, authorityHost: String?,
         managedIdentityProbeTimeout: TimeInterval, azureCLITimeout: TimeInterval = 30) {
        self.steps = steps
        self.environment = environment
        self.httpClient = httpClient
        self.authorityHost = authorityHost ?? environment["AZURE_AUTHORITY_HOST"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "https://login.microsoftonline.com"
        self.managedIdentityProbeTimeout = managedIdentityProbeTimeout
        self.azureCLITimeout = azureCLITimeout
    }

    /// A token for `scopes` (one resource's `/.default` for the app steps) from the first step that gives one.
    public func token(scopes: [String]) async throws -> Token {
        var reasons: [String] = []
        var lastError: MSALErrorInfo?
        for step in steps {
            do {
                if let token = try await attempt(step, scopes: scopes) { return token }
            } catch let error as MSALErrorInfo {
                lastError = error
                reasons.append("\(step.rawValue): \(error.errorDescription)")
                continue
            } catch is CancellationError {
                throw MSALErrorInfo.cancelled("The credential chain", correlationId: nil)
            }
        }
        let summary = "No credential in the chain gave a token. " + reasons.joined(separator: "; ")
        var error = lastError ?? MSALErrorInfo.invalidParameter(summary)
        error.errorDescription = summary
        throw error
    }

    func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }

    func skipped(_ why: String) -> MSALErrorInfo { MSALErrorInfo.invalidParameter(why) }

    /// The step's token; throws why it did not apply or failed.
    private func attempt(_ step: Step, scopes: [String]) async throws -> Token? {
        switch step {
        case .environment:
            guard let tenant = value("AZURE_TENANT_ID"), let clientId = value("AZURE_CLIENT_ID") else {
                throw skipped("AZURE_TENANT_ID and AZURE_CLIENT_ID are not both set.")
            }
            let credential: MSALClientCredential
            if let secret = value("AZURE_CLIENT_SECRET") {
                credential = .secret(secret)
            } else if let path = value("AZURE_CLIENT_CERTIFICATE_PATH") {
                let data: Data
                do {
                    data = try OutsideFile.read(path, limit: 1 << 20)
                } catch {
                    throw skipped("AZURE_CLIENT_CERTIFICATE_PATH names a file that cannot be read (\(path): \(error)).")
                }
                // PEM, or PKCS#12 with AZURE_CLIENT_CERTIFICATE_PASSWORD, as azure-identity reads it.
                credential = .certificate(try MSALCertificateCredential(contentsOf: data,
                                                                        password: value("AZURE_CLIENT_CERTIFICATE_PASSWORD")))
            } else {
                throw skipped("neither AZURE_CLIENT_SECRET nor AZURE_CLIENT_CERTIFICATE_PATH is set.")
            }
            return try await appToken(tenant: tenant, clientId: clientId, credential: credential, scopes: scopes, step: step)
        case .workloadIdentity:
            guard let tenant = value("AZURE_TENANT_ID"), let clientId = value("AZURE_CLIENT_ID"),
                  let file = value("AZURE_FEDERATED_TOKEN_FILE") else {
                throw skipped("AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_FEDERATED_TOKEN_FILE are not all set.")
            }
            return try await appToken(tenant: tenant, clientId: clientId,
                                      credential: .workloadIdentity(tokenFile: file, environment: environment),
                                      scopes: scopes, step: step)
        case .managedIdentity:
            return try await managedIdentityToken(scopes: scopes)
        case .msalAccount:
            return try await msalAccountToken(scopes: scopes)
        case .azureCLI:
            return try await azureCLIToken(scopes: scopes)
        }
    }

    private func appToken(tenant: String, clientId: String, credential: MSALClientCredential, scopes: [String],
                          step: Step) async throws -> Token {
        guard let url = URL(string: "\(authorityHost.trimmingCharacters(in: CharacterSet(charactersIn: "/")))/\(tenant)") else {
            throw skipped("the authority for tenant \(tenant) is not a URL.")
        }
        let config = MSALConfidentialClientApplicationConfig(clientId: clientId, clientCredential: credential,
                                                             authority: try MSALAuthority(url: url))
        config.httpClient = httpClient
        let app = try MSALConfidentialClientApplication(configuration: config)
        let result = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
        return Token(accessToken: result.accessToken, expiresOn: result.expiresOn, step: step)
    }

    private func managedIdentityToken(scopes: [String]) async throws -> Token {
        guard let parameters = MSALManagedIdentityParameters(scopes: scopes) else {
            throw skipped("managed identity needs a single /.default scope.")
        }
        let identity: MSALManagedIdentityId = value("AZURE_CLIENT_ID").map { .userAssignedClientId($0) } ?? .systemAssigned
        let config = MSALManagedIdentityConfig()
        config.httpClient = httpClient
        config.environment = environment
        let app = try MSALManagedIdentityApplication(managedIdentity: identity, configuration: config)
        if app.source == .imds {
            // Off Azure nothing answers at the IMDS address: probe with a short timeout and no retries first.
            let probe = MSALManagedIdentityConfig()
            probe.httpClient = httpClient
            probe.environment = environment
            probe.timeout = managedIdentityProbeTimeout
            let prober = try MSALManagedIdentityApplication.probe(
                managedIdentity: identity, configuration: probe,
                platform: MSALPlatformServices(httpClient: httpClient ?? DeferredHTTPClient()))
            do {
                let result = try await prober.acquireTokenForManagedIdentity(with: parameters)
                return Token(accessToken: result.accessToken, expiresOn: result.expiresOn, step: .managedIdentity)
            } catch let error as MSALErrorInfo where error.httpStatusCode == nil {
                throw skipped("no managed identity endpoint answered at the instance metadata address "
                              + "within \(Int(managedIdentityProbeTimeout)) s.")
            } catch let error as MSALErrorInfo
                        where !MSALManagedIdentityApplication.isRetryable(status: error.httpStatusCode ?? 0) {
                throw error
            }
        }
        let result = try await app.acquireTokenForManagedIdentity(with: parameters)
        return Token(accessToken: result.accessToken, expiresOn: result.expiresOn, step: .managedIdentity)
    }
}
