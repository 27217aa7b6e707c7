import Foundation

extension ClientEngine {
    /// Builds the authorization URL of a web app's sign-in (PKCE S256, state, nonce) and what the app keeps.
    func startAuthorizationCodeFlow(scopes: [String], redirectUri: String, loginHint: String?, domainHint: String?,
                                    prompt: MSALPromptType, responseMode: String?, extra: [String: String],
                                    correlationId: UUID) async throws -> MSALAuthorizationCodeFlow {
        try Scopes.validate(scopes, correlationId: correlationId)
        try EngineSettings.validateWebRedirectUri(redirectUri, correlationId: correlationId)
        if let responseMode, !["query", "form_post"].contains(responseMode) {
            throw MSALErrorInfo.invalidParameter("responseMode must be query or form_post.", correlationId: correlationId)
        }
        let resolved = try await resolve(settings.authority.descriptor, correlationId: correlationId)
        let verifier = PKCE.makeVerifier()
        let request = AuthorizationRequest(
            authorizationEndpoint: resolved.metadata.authorizationEndpoint, clientId: settings.clientId, scopes: scopes,
            state: OAuthRandom.state(), nonce: OAuthRandom.nonce(), codeVerifier: verifier,
            codeChallenge: PKCE.challenge(for: verifier), prompt: prompt, loginHint: loginHint, domainHint: domainHint,
            claims: ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: nil),
            responseMode: responseMode,
            extraQueryParameters: settings.extraQueryParameters.merging(extra, uniquingKeysWith: { $1 }),
            correlationId: correlationId, instanceAware: false)
        return MSALAuthorizationCodeFlow(authorizationURL: request.url(redirectUri: redirectUri), state: request.state,
                                         nonce: request.nonce, codeVerifier: verifier, redirectUri: redirectUri,
                                         scopes: scopes)
    }

    /// Checks the redirect's parameters against `flow` (state first), redeems the code with the app's credential and
    /// the PKCE verifier, validates the id token (nonce included) and stores the tokens for silent calls.
    /// `cache`: where the tokens go, chosen by the home account id of the validated answer (a partition of a
    /// partitioned cache is known only then).
    func acquireToken(byAuthorizationCodeFlow flow: MSALAuthorizationCodeFlow, response: [String: String],
                      correlationId: UUID, popScheme: MSALAuthenticationSchemePop? = nil,
                      cache: @Sendable (String) async -> any TokenCachePort) async throws -> MSALResult {
        let binding = try popBinding(popScheme, correlationId: correlationId)
        let resolved = try await resolve(settings.authority.descriptor, correlationId: correlationId)
        let request = AuthorizationRequest(
            authorizationEndpoint: resolved.metadata.authorizationEndpoint, clientId: settings.clientId, scopes: flow.scopes,
            state: flow.state, nonce: flow.nonce, codeVerifier: flow.codeVerifier,
            codeChallenge: PKCE.challenge(for: flow.codeVerifier), prompt: .default, loginHint: nil, domainHint: nil,
            claims: ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: nil), responseMode: nil,
            extraQueryParameters: [:], correlationId: correlationId, instanceAware: false)
        guard case .code(let code, _) = try request.read(MSALWebAuthenticationResponse(redirectUri: flow.redirectUri, parameters: response)) else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "Unexpected authorization outcome.", correlationId: correlationId)
        }
        var redemption = TokenRedemption(
            resolved: resolved, scopes: flow.scopes, correlationId: correlationId, authority: settings.authority,
            nonce: flow.nonce, requiresIdToken: true, accountSource: "authorization_code")
        redemption.proofOfPossession = binding
        let tokenResponse = try await postGrant(request.codeGrant(code: code, redirectUri: flow.redirectUri),
                                                redemption: redemption)
        return try await accept(tokenResponse, redemption, cacheForAccount: cache)
    }
}

extension EngineSettings {
    /// A web app's redirect URI: absolute https, or http on a loopback host; no fragment.
    static func validateWebRedirectUri(_ uri: String, correlationId: UUID) throws {
        do {
            try validateRedirectUri(uri)
        } catch var error as MSALErrorInfo {
            error.correlationId = correlationId
            throw error
        }
        guard let scheme = URLComponents(string: uri)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI, "A web app's redirect URI must be https.",
                                         correlationId: correlationId)
        }
    }
}
