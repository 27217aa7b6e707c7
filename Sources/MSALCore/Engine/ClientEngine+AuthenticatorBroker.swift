import Foundation

/// Microsoft Authenticator, app to app (MSAL for iOS/macOS's broker on iOS): an interactive request is opened in the
/// broker app, whose encrypted answer comes back through ``MSALPublicClientApplication/handleMSALResponse(_:sourceApplication:)``.
/// Its tokens (a refresh token included) are checked and stored as the identity platform's are.
extension ClientEngine {
    /// An interactive sign-in through the broker app; nil when the application has none, it is not installed, or it
    /// could not be opened (the caller uses its web view).
    func brokerAppInteractive(_ request: InteractiveRequest, authority: MSALAuthority) async throws -> MSALResult? {
        guard let app = brokerApp, MSALGlobalConfig.brokerAvailability != .none, authority.descriptor.kind == .aad,
              await app.opener.canOpenBroker(scheme: AuthenticatorBrokerRequest.scheme),
              await app.opener.canOpenBroker(scheme: AuthenticatorBrokerRequest.nonceScheme) else { return nil }
        let correlationId = request.correlationId
        let key: Data
        do {
            key = try app.keyStore.brokerKey()
        } catch {
            throw MSALErrorInfo.internal(.internalErrorBrokerKeyFailedToCreate, "The broker key could not be kept.",
                                         correlationId: correlationId)
        }
        let resolved = try await resolve(authority.descriptor, correlationId: correlationId)
        let scopes = request.scopes + request.extraScopesToConsent
        var brokerRequest = AuthenticatorBrokerRequest(
            authority: authority.url.absoluteString, clientId: settings.clientId, redirectUri: settings.redirectUri,
            correlationId: correlationId, scopes: request.scopes, brokerKey: key,
            claims: ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: request.claimsRequest),
            clientCapabilities: settings.clientCapabilities, loginHint: request.loginHint,
            homeAccountId: request.account?.identifier, username: request.account?.username, prompt: request.prompt.parameterValue,
            extraQueryParameters: settings.extraQueryParameters.merging(request.extraQueryParameters) { $1 },
            extraConsentScopes: request.extraScopesToConsent,
            applicationToken: try? app.keyStore.applicationToken(clientId: settings.clientId))
        brokerRequest.boundRefreshTokenRedeem = settings.requestsBoundAppRefreshTokens
        log(correlationId).info("Signing in through the broker app.")
        let url = brokerRequest.url
        let fields: [String: String]
        do {
            fields = try await AuthenticatorSessions.process.run(brokerRequest.resumeState, key: key) {
                await app.opener.open(url)
            }
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            log(correlationId).info("The broker app could not be opened; signing in with the web view.")
            return nil
        }
        if let token = fields["application_token"], !token.isEmpty, token.utf8.count <= 8192 {
            try? app.keyStore.setApplicationToken(token, clientId: settings.clientId)
        }
        let response = try AuthenticatorBrokerResponse.tokenResponse(fields, now: clock.now(), correlationId: correlationId)
        let redemption = TokenRedemption(
            resolved: resolved, scopes: scopes, correlationId: correlationId, authority: authority,
            knownAccount: nil, knownHomeAccountId: nil, requiresIdToken: true, accountSource: "broker")
        let result = try await accept(response, redemption, cache: cache)
        RequestDiagnostics.current?.noteSource(.broker)
        return result
    }
}
