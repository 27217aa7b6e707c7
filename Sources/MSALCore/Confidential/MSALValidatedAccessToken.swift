public import Foundation

/// An access token a web API received and validated with
/// ``MSALConfidentialClientApplication/validateAccessToken(_:audiences:requiredScopes:)``.
public struct MSALValidatedAccessToken: Sendable, CustomStringConvertible {
    /// The raw token, to pass on (for example as the user assertion of on-behalf-of).
    public let rawValue: String
    /// `oid`: the caller's object id in the issuing tenant.
    public let objectId: String?
    /// `tid`: the issuing tenant.
    public let tenantId: String?
    /// `sub`.
    public let subject: String?
    /// The delegated scopes (`scp`), for a user's token.
    public let scopes: [String]
    /// The application permissions (`roles`), for an app token.
    public let roles: [String]
    /// Whether the caller is an application rather than a user (`idtyp` app, or roles without scopes).
    public let isAppToken: Bool
    /// `preferred_username` (or `upn`), for a user's token.
    public let username: String?
    /// When the token expires.
    public let expiresOn: Date
    /// Every claim.
    public let claims: [String: JSONValue]

    public var description: String {
        "MSALValidatedAccessToken(tenantId: \(tenantId ?? "?"), objectId: \(objectId ?? "?"), scopes: \(scopes), "
            + "roles: \(roles), token: <redacted>)"
    }
}

extension MSALConfidentialClientApplication {
    /// Validates an access token a web API received (RFC 9068 / Entra's rules): its signature against the
    /// authority's published keys (`jwks_uri`, fetched once and on key rollover), the issuer (the authority's, with
    /// the token's tenant for multi-tenant authorities), the audience (one of `audiences`: the API's client id
    /// and app id URI), `exp` and `nbf` with five minutes of skew, and that it carries every one of
    /// `requiredScopes` (in `scp`, or in `roles` for app tokens).
    ///
    /// Throws ``MSALInternalError/internalErrorInvalidParameter`` naming the failed check, never a claim value or
    /// the token; answer the caller 401 (403 for missing scopes).
    public func validateAccessToken(_ token: String, audiences: [String],
                                    requiredScopes: [String] = []) async throws -> MSALValidatedAccessToken {
        let correlationId = CorrelationID.next()
        return try await ErrorBoundary.run(.accounts, correlationId: correlationId) { [engine] in
            try await engine.validateAccessToken(token, audiences: audiences, requiredScopes: requiredScopes,
                                                 correlationId: correlationId)
        }
    }
}

extension ClientEngine {
    func validateAccessToken(_ raw: String, audiences: [String], requiredScopes: [String],
                             correlationId: UUID) async throws -> MSALValidatedAccessToken {
        func refuse(_ why: String) -> MSALErrorInfo {
            .invalidParameter("The access token is not valid: \(why).", correlationId: correlationId)
        }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 * 1024, let token = try? IdToken(raw: trimmed) else {
            throw refuse("it is not a JWT")
        }
        let resolved = try await resolve(settings.authority.descriptor, correlationId: correlationId)
        let check = try await signingKeys.check(
            for: token, metadata: resolved.metadata,
            context: RequestContext(http: http, correlationId: correlationId, timeout: settings.http.timeout),
            now: clock.now(), log: log(correlationId))
        guard case .keys = check else { throw refuse("the authority publishes no signing keys to check it with") }
        do { try check.verify(token) } catch { throw refuse("its signature does not verify with the authority's keys") }
        let expectedIssuer = resolved.metadata.issuer.replacingOccurrences(of: "{tenantid}", with: token.tid ?? "")
        guard let issuer = token.string("iss"), issuer == expectedIssuer else { throw refuse("it was issued by another issuer") }
        guard token.aud.contains(where: { audiences.contains($0) }) else { throw refuse("it is for another audience") }
        let now = clock.now()
        guard let exp = token.exp, exp.addingTimeInterval(300) > now else { throw refuse("it has expired") }
        if let nbf = token.nbf, nbf > now.addingTimeInterval(300) { throw refuse("it is not valid yet") }
        let scopes = (token.string("scp") ?? "").split(separator: " ").map(String.init)
        let roles: [String] = {
            if case .array(let values)? = token.claims["roles"] { return values.compactMap(\.stringValue) }
            return []
        }()
        let isApp = token.string("idtyp") == "app" || (scopes.isEmpty && !roles.isEmpty)
        let granted = Set((isApp ? roles : scopes).map { $0.lowercased() })
        if let missing = requiredScopes.first(where: { !granted.contains($0.lowercased()) }) {
            throw refuse("it does not carry the scope \(missing)")
        }
        return MSALValidatedAccessToken(rawValue: trimmed, objectId: token.oid, tenantId: token.tid, subject: token.sub,
                                        scopes: scopes, roles: roles, isAppToken: isApp,
                                        username: token.preferredUsername, expiresOn: exp, claims: token.claims)
    }
}
