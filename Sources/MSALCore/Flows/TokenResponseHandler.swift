import Foundation

/// What a validated token response contributes: the cache write and the pieces of the ``MSALResult``.
struct HandledTokenResponse: Sendable {
    var write: CacheTokenResponse
    var accessToken: String
    var granted: [String]
    var declined: [String]
    var homeAccountId: String
    var realm: String
    var idToken: IdToken?
    var expiresOn: Date
}

/// Validates a token response (RFC 6749 §5.1, OIDC Core §3.1.3.7) and prepares what the cache stores.
struct TokenResponseHandler: Sendable {
    var clientId: String
    var resolved: ResolvedAuthority
    /// The scopes the application asked for (without reserved scopes).
    var requestedScopes: [String]
    /// The nonce sent in the authorization request (authorization-code grant only).
    var nonce: String?
    /// The account the request was for, when known (refresh, or interactive with an account).
    var knownHomeAccountId: String?
    /// How the id token's signature is established (the authority's keys, or TLS when it publishes none).
    var signature: IdTokenSignatureCheck
    /// Whether the response must carry an id token: `openid` was requested in a sign-in grant (code, device
    /// code), so a response without one cannot name the account (OpenID Connect Core §3.1.3.3).
    var requiresIdToken: Bool
    /// The local clock when the response arrived.
    var now: Date
    var correlationId: UUID
    /// Where warnings go (the application's log).
    var log = MSALLog()
    /// Whether the token was asked for bound to a key (`token_type=pop`): the answer must then be `pop`, and
    /// otherwise `Bearer`.
    var expectsProofOfPossession = false

    func handle(_ response: TokenResponse, accountSource: String?, replacingRefreshTokenKey: String?) throws -> HandledTokenResponse {
        guard let accessToken = response.accessToken else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "The token response has no access_token.",
                                         correlationId: correlationId)
        }
        try response.checkTokenType(expectsProofOfPossession: expectsProofOfPossession, correlationId: correlationId)
        let time = IdTokenTime(localNow: now, serverDate: response.serverDate)
        var idToken: IdToken?
        let clientInfo: ClientInfo?
        do {
            if let raw = response.idToken {
                let token = try IdToken(raw: raw)
                try signature.verify(token)
                if let skew = time.notableSkew {
                    log.with(correlationId: correlationId).warning(
                        "The local clock is \(ExternalNumber.clampedInteger(skew / 60)) minutes off the identity provider's; id token times are judged by the provider's clock.")
                }
                try IdTokenValidator.validate(token, expectedIssuer: resolved.metadata.issuer, clientId: clientId,
                                              nonce: nonce, now: time.reference)
                idToken = token
            } else if requiresIdToken {
                throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                             "The token response has no id_token although openid was requested.")
            }
            clientInfo = try response.clientInfo.map { try ClientInfo(encoded: $0) }
            if let idToken, let clientInfo { try IdTokenValidator.validateSubject(idToken, clientInfo: clientInfo) }
        } catch var error as MSALErrorInfo {
            error.correlationId = correlationId
            throw error
        }
        guard let homeAccountId = clientInfo?.homeAccountId ?? knownHomeAccountId else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse, "Client info was not returned in the server response.",
                                         correlationId: correlationId)
        }
        if let knownHomeAccountId, knownHomeAccountId.lowercased() != homeAccountId.lowercased() {
            var error = MSALErrorInfo.internal(.internalErrorMismatchedUser,
                                               "The server returned a different account than the one requested.",
                                               correlationId: correlationId)
            error.homeAccountId = homeAccountId
            throw error
        }
        let realm = idToken?.tid ?? clientInfo?.utid ?? resolved.descriptor.tenant
        let granted = Scopes.effectiveGranted(
            requested: requestedScopes,
            granted: response.scopes ?? Scopes.requestParameter(requestedScopes).split(separator: " ").map(String.init))
        // Lifetimes arrive bounded (ExternalNumber): finite, not negative, at most 10 years.
        let expiresIn = response.expiresIn ?? 600
        let expiresOn = now.addingTimeInterval(expiresIn)
        let write = CacheTokenResponse(
            homeAccountId: homeAccountId,
            environment: resolved.cacheEnvironment,
            clientId: clientId,
            realm: realm,
            target: granted.joined(separator: " "),
            accessToken: accessToken,
            tokenType: expectsProofOfPossession ? "pop" : "Bearer",
            cachedAt: now,
            expiresOn: expiresOn,
            extendedExpiresOn: now.addingTimeInterval(response.extExpiresIn ?? expiresIn),
            refreshOn: response.refreshIn.map { now.addingTimeInterval($0) },
            refreshToken: response.refreshToken,
            familyId: response.familyId,
            replacingRefreshTokenKey: replacingRefreshTokenKey,
            idToken: response.idToken,
            account: CacheTokenResponse.AccountInfo(
                localAccountId: idToken?.oid ?? idToken?.sub ?? clientInfo?.uid ?? "",
                username: idToken?.preferredUsername ?? "",
                name: idToken?.name),
            writesAccount: idToken != nil && accountSource != nil,
            accountSource: accountSource)
        return HandledTokenResponse(write: write, accessToken: accessToken, granted: granted,
                                    declined: Scopes.declined(requested: requestedScopes, granted: granted),
                                    homeAccountId: homeAccountId, realm: realm, idToken: idToken, expiresOn: expiresOn)
    }
}
