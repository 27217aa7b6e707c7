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
        let resume = brokerRequest.resumeState
        // Kept until the answer comes, so that an answer after a relaunch still reaches the cache.
        try? app.keyStore.setPendingRequest(resume.encoded)
        let fields: [String: String]
        do {
            defer { try? app.keyStore.setPendingRequest(nil) }
            fields = try await AuthenticatorSessions.process.run(resume, key: key) {
                await app.opener.open(url)
            }
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            log(correlationId).info("The broker app could not be opened; signing in with the web view.")
            return nil
        }
        return try await acceptAuthenticatorAnswer(fields, app: app, resolved: resolved, authority: authority, scopes: scopes,
                                                   correlationId: correlationId)
    }

    /// Checks and stores the broker's tokens (its application token kept); a device-bound app refresh token
    /// (`refresh_token_type` `bound_app_rt`), which only a redemption signed by the device can use, is not stored.
    func acceptAuthenticatorAnswer(_ fields: [String: String], app: MSALBrokerApp, resolved: ResolvedAuthority,
                                   authority: MSALAuthority, scopes: [String], correlationId: UUID) async throws -> MSALResult {
        var fields = fields
        if let token = fields["application_token"], !token.isEmpty, token.utf8.count <= 8192 {
            try? app.keyStore.setApplicationToken(token, clientId: settings.clientId)
        }
        if fields["refresh_token_type"] == "bound_app_rt" {
            log(correlationId).info("The broker's refresh token is bound to the device; it is not stored.")
            fields["refresh_token"] = nil
        }
        let response = try AuthenticatorBrokerResponse.tokenResponse(fields, now: clock.now(), correlationId: correlationId)
        let redemption = TokenRedemption(
            resolved: resolved, scopes: scopes, correlationId: correlationId, authority: authority,
            knownAccount: nil, knownHomeAccountId: nil, requiresIdToken: true, accountSource: "broker")
        let result = try await accept(response, redemption, cache: cache)
        RequestDiagnostics.current?.noteSource(.broker)
        return result
    }

    /// Takes an answer of the broker app that no request waits for: the answer to this application's request made
    /// before the app was relaunched (kept by ``MSALBrokerKeyStore/setPendingRequest(_:)``). Its tokens are checked and
    /// stored, so the next silent request finds them; true when the answer was this application's.
    func takeOrphanedAuthenticatorAnswer(_ url: URL, sourceApplication: String?) -> Bool {
        guard let app = brokerApp, let kept = try? app.keyStore.pendingRequest(),
              let resume = AuthenticatorResumeState(encoded: kept), resume.clientId == settings.clientId,
              AuthenticatorBrokerResponse.answers(url, resume), let key = try? app.keyStore.brokerKey() else { return false }
        try? app.keyStore.setPendingRequest(nil)
        let correlationId = resume.correlationId
        NotificationCenter.default.post(name: NSNotification.Name(MSALWebAuthDidReceiveResponseFromBroker), object: nil)
        let fields: [String: String]
        do {
            fields = try AuthenticatorBrokerResponse.fields(url, key: key, resume: resume, sourceApplication: sourceApplication)
        } catch {
            log(correlationId).warning("The broker's answer to a request made before the app was relaunched was refused.")
            return true
        }
        log(correlationId).info("Storing the broker's answer to a request made before the app was relaunched.")
        Task {
            do {
                let authority = try MSALAuthority(url: URL(string: resume.authority) ?? settings.authority.url)
                let resolved = try await resolve(authority.descriptor, correlationId: correlationId)
                _ = try await acceptAuthenticatorAnswer(fields, app: app, resolved: resolved, authority: authority,
                                                        scopes: resume.scopes, correlationId: correlationId)
            } catch {
                log(correlationId).warning("The broker's answer to a request made before the app was relaunched could not be stored.")
            }
        }
        return true
    }
}
