import Foundation

/// How the signature of one id token is established.
enum IdTokenSignatureCheck: Sendable {
    /// Verify against the authority's published keys, accepting these algorithms.
    case keys(IdTokenSignatureVerifier, algorithms: Set<String>)
    /// The authority publishes no `jwks_uri`: the token came straight from its token endpoint over TLS, which
    /// OpenID Connect Core §3.1.3.7 item 6 accepts in place of a signature check.
    case transport

    /// Throws when `token`'s signature is not acceptable.
    func verify(_ token: IdToken) throws {
        switch self {
        case .keys(let verifier, let algorithms):
            try verifier.verify(token, algorithms: algorithms)
        case .transport:
            // Even without keys, an unsecured or HMAC token is never what an OpenID provider should send.
            guard let alg = token.algorithm, alg != "none", !alg.uppercased().hasPrefix("HS") else {
                throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                             "The id token is unsigned or uses a shared-secret algorithm.")
            }
        }
    }
}

/// The signing keys of the authorities one application talks to, fetched from each authority's `jwks_uri`
/// through the application's transport and kept per key-set URL.
///
/// Bounded: at most ``maximumSets`` key sets are kept; a token whose `kid` is not in the set causes one refetch
/// (key rollover), and refetches of one set are at least ``refetchInterval`` apart, so that a server cannot make
/// the client fetch on every response. Key-set documents over ``maximumDocumentSize`` are refused.
actor SigningKeyStore {
    static let maximumSets = 32
    static let refetchInterval: TimeInterval = 30
    static let maximumDocumentSize = 512 * 1024

    private struct Entry {
        var verifier: IdTokenSignatureVerifier
        var fetchedAt: Date
    }

    private var sets: [URL: Entry] = [:]
    private var loggedTransportOnly: Set<String> = []

    /// The check for `token` from the authority described by `metadata`: its keys (fetched on first use, and
    /// once more when the token's `kid` is unknown), or trust in the transport when no `jwks_uri` is published.
    func check(for token: IdToken, metadata: OpenIDMetadata, context: RequestContext, now: Date,
               log: MSALLog) async throws -> IdTokenSignatureCheck {
        var algorithms: Set<String> = ["RS256"]
        if metadata.idTokenSigningAlgorithms.contains("ES256") { algorithms.insert("ES256") }
        guard let uri = metadata.jwksURI else {
            let issuer = metadata.issuer
            if loggedTransportOnly.insert(issuer).inserted {
                log.warning("The authority publishes no jwks_uri; id tokens from its token endpoint are trusted on the strength of TLS alone.")
            }
            return .transport
        }
        if let entry = sets[uri] {
            if entry.verifier.hasKey(for: token) || now.timeIntervalSince(entry.fetchedAt) < Self.refetchInterval {
                return .keys(entry.verifier, algorithms: algorithms)
            }
            log.info("The id token's kid is not in the cached key set; fetching the keys again.")
        }
        let verifier = try await fetch(uri, context: context)
        if sets.count >= Self.maximumSets, sets[uri] == nil { sets.removeAll() }
        sets[uri] = Entry(verifier: verifier, fetchedAt: now)
        return .keys(verifier, algorithms: algorithms)
    }

    private func fetch(_ uri: URL, context: RequestContext) async throws -> IdTokenSignatureVerifier {
        let response = try await context.get(uri, what: "The signing keys request")
        guard response.statusCode == 200 else {
            var error = MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                               "The signing keys request answered HTTP \(response.statusCode).",
                                               correlationId: context.correlationId)
            error.httpStatusCode = response.statusCode
            throw error
        }
        guard response.body.count <= Self.maximumDocumentSize else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The signing keys document is too large.",
                                         correlationId: context.correlationId)
        }
        do {
            return try IdTokenSignatureVerifier(jwks: response.body)
        } catch var error as MSALErrorInfo {
            error.correlationId = context.correlationId
            throw error
        }
    }
}
