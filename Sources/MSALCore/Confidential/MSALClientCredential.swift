public import Foundation

/// What a client assertion is made for: handed to a `MSALClientCredential.assertion` provider each time a
/// confidential client needs one.
public struct MSALClientAssertionRequest: Sendable {
    /// The application (client) id: the assertion's `iss` and `sub`.
    public let clientId: String
    /// The token endpoint the assertion is sent to: its `aud`.
    public let tokenEndpoint: URL
    /// Whether the authority accepts RSA-PSS (`PS256`) signatures: Microsoft Entra ID does; AD FS and other
    /// authorities get `RS256`.
    public let supportsPSS: Bool
    /// The application's clock reading when the assertion is asked for: its `iat`, `nbf` and `exp` start here.
    public let now: Date

    /// Creates a request (for providers tested on their own).
    public init(clientId: String, tokenEndpoint: URL, supportsPSS: Bool, now: Date = Date()) {
        self.clientId = clientId
        self.tokenEndpoint = tokenEndpoint
        self.supportsPSS = supportsPSS
        self.now = now
    }
}

/// How a confidential client proves its identity to the token endpoint: a client secret, or a signed client
/// assertion (RFC 7523) made by a certificate (`MSALCertificateCredential`, in the `MSAL` module) or by your own
/// provider, such as a federated token from another identity provider.
///
/// ```swift
/// let secret = MSALClientCredential.secret(ProcessInfo.processInfo.environment["CLIENT_SECRET"]!)
/// let federated = MSALClientCredential.assertion { try await fetchFederatedToken() }
/// let workload = MSALClientCredential.workloadIdentity()   // AZURE_FEDERATED_TOKEN_FILE
/// ```
///
/// A credential never shows its secret: `description` and logs print `<redacted>`, errors never contain it, and
/// it is never written to the token cache.
public struct MSALClientCredential: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    enum Kind: Sendable {
        case secret(String)
        case assertion(@Sendable (MSALClientAssertionRequest) async throws -> String)
    }

    let kind: Kind
    /// What `description` names (`secret`, `certificate`, `assertion`, `workload identity`).
    let label: String

    init(kind: Kind, label: String) {
        self.kind = kind
        self.label = label
    }

    /// A client secret (`client_secret`), as registered in the app registration's "Certificates & secrets".
    public static func secret(_ secret: String) -> MSALClientCredential {
        MSALClientCredential(kind: .secret(secret), label: "secret")
    }

    /// A client assertion made on demand: the provider returns a signed JWT for the request it is given. It is
    /// called for every token request, so it may return a fresh assertion each time (cache inside it if making
    /// one is costly).
    public static func assertion(
        _ provider: @escaping @Sendable (MSALClientAssertionRequest) async throws -> String
    ) -> MSALClientCredential {
        MSALClientCredential(kind: .assertion(provider), label: "assertion")
    }

    /// A client assertion that does not depend on the request, such as a federated token from another identity
    /// provider (a Kubernetes service account token, a GitHub Actions OIDC token).
    public static func assertion(_ provider: @escaping @Sendable () async throws -> String) -> MSALClientCredential {
        MSALClientCredential(kind: .assertion({ _ in try await provider() }), label: "assertion")
    }

    /// A credential made by a signer of client assertions under the given name (for credential types built on
    /// this one, such as certificates).
    public static func signedAssertion(
        named name: String, _ signer: @escaping @Sendable (MSALClientAssertionRequest) async throws -> String
    ) -> MSALClientCredential {
        MSALClientCredential(kind: .assertion(signer), label: name)
    }

    public var description: String { "MSALClientCredential(\(label): <redacted>)" }
    public var debugDescription: String { description }

    /// The form parameters that authenticate a token request: `client_secret`, or `client_assertion_type` and
    /// `client_assertion`. A provider's failure becomes a typed error that names the credential, never its value.
    func formParameters(for request: MSALClientAssertionRequest, correlationId: UUID) async throws -> [(String, String)] {
        switch kind {
        case .secret(let secret):
            return [("client_secret", secret)]
        case .assertion(let provider):
            let assertion: String
            do {
                assertion = try await provider(request)
            } catch let error as MSALErrorInfo {
                var error = error
                error.correlationId = error.correlationId ?? correlationId
                throw error
            } catch where ErrorBoundary.isCancellation(error) || Task.isCancelled {
                throw CancellationError()
            } catch {
                var info = MSALErrorInfo.invalidParameter(
                    "The client \(label) could not make a client assertion: \(String(describing: type(of: error))).",
                    correlationId: correlationId)
                info.underlyingError = error
                throw info
            }
            let trimmed = assertion.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.utf8.count <= 64 * 1024,
                  trimmed.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
                throw MSALErrorInfo.invalidParameter(
                    "The client \(label) returned something that is not a JWT (three dot-separated parts, at most 64 KiB).",
                    correlationId: correlationId)
            }
            return [("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", trimmed)]
        }
    }
}
