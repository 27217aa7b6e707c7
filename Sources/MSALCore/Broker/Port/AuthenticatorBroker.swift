import Foundation

/// Microsoft Authenticator, app to app (MSAL for iOS/macOS's broker on iOS), on the broker port: an interactive
/// request is opened in the broker app, whose encrypted answer comes back through
/// ``MSALPublicClientApplication/handleMSALResponse(_:sourceApplication:)``. Its tokens (a refresh token included)
/// are checked and stored as the identity platform's are. Silent requests never go to it: MSAL for iOS/macOS
/// redeems the refresh token Authenticator gave.
struct AuthenticatorBroker: BrokerPort {
    let app: MSALBrokerApp

    var name: String { "broker app" }

    /// Interactive requests only (the engine has checked the redirect URI), with the broker app installed: both of
    /// its schemes can be opened (`MSIDBrokerInvocationOptions.m:90-122`, `msauthv2://broker` and `msauthv3://broker`).
    func isEligible(_ request: BrokerEligibility, engine: ClientEngine) async -> Bool {
        guard request.operation == .interactive, engine.appleBrokersMayAnswer(request) else { return false }
        guard await app.opener.canOpenBroker(scheme: AuthenticatorBrokerRequest.scheme) else { return false }
        return await app.opener.canOpenBroker(scheme: AuthenticatorBrokerRequest.nonceScheme)
    }

    func interactive(_ request: InteractiveRequest, authority: MSALAuthority, engine: ClientEngine) async throws -> BrokeredToken? {
        let correlationId = request.correlationId
        let settings = engine.settings
        let key: Data
        do {
            key = try app.keyStore.brokerKey()
        } catch {
            throw MSALErrorInfo.internal(.internalErrorBrokerKeyFailedToCreate, "The broker key could not be kept.",
                                         correlationId: correlationId)
        }
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
        if let binding = request.proofOfPossession {
            brokerRequest.tokenType = AuthenticatorBroker.popTokenType
            brokerRequest.requestConfirmation = binding.key.requestConfirmation
        }
        // Bound app refresh tokens are not asked for (``MSALGlobalConfig/shouldRequestBoundAppRefreshTokens``): their
        // redemption is a JWT signed with the device's Secure Enclave key and answered encrypted to its transport key
        // (`MSIDBoundRefreshTokenGrantRequest.m:41-127`, `MSIDBoundRefreshToken+Redemption.m:101-112`), which an app
        // cannot make without those keys; a token it cannot redeem would make every silent call interactive. The
        // request's `boundRefreshTokenRedeem` stays false.
        engine.log(correlationId).info("Signing in through the broker app.")
        let url = brokerRequest.url
        let resume = brokerRequest.resumeState
        // Kept until the answer comes, so that an answer after a relaunch still reaches the cache.
        try? app.keyStore.setPendingRequest(resume.encoded)
        let fields: [String: String]
        do {
            defer { try? app.keyStore.setPendingRequest(nil) }
            fields = try await AuthenticatorSessions.process.run(resume, key: key) { [opener = app.opener] in
                await opener.open(url)
            }
        } catch let error as MSALErrorInfo where error.internalCode == .internalBrokerNotAvailable {
            engine.log(correlationId).info("The broker app could not be opened; signing in with the web view.")
            return nil
        }
        var brokered = try token(fields, authority: authority, scopes: scopes, account: request.account, engine: engine,
                                 correlationId: correlationId)
        brokered.proofOfPossession = request.proofOfPossession.map { .applicationKey($0) }
        return brokered
    }

    /// The `token_type` of a proof-of-possession request to the Apple brokers, as MSAL for iOS/macOS writes its scheme
    /// (`MSIDAuthScheme.m`, `MSIDAuthSchemeParamFromType`).
    static let popTokenType = "Pop"

    /// How a proof-of-possession answer to a request made before the app was relaunched is kept: under the
    /// application's key when it is still the one the request named (its signed request is not used), else for its
    /// account and refresh token only.
    func orphanedBinding(_ resume: AuthenticatorResumeState, engine: ClientEngine) -> BrokeredPoP? {
        guard resume.tokenType != nil else { return nil }
        if let key = try? engine.settings.popKeyStore.keyPair(), key.requestConfirmation == resume.requestConfirmation,
           let url = URL(string: resume.authority) {
            return .applicationKey(PoPBinding(key: key, scheme: MSALAuthenticationSchemePop(httpMethod: .GET, requestUrl: url,
                                                                                             nonce: nil, additionalParameters: nil)))
        }
        return .brokerKey(BrokerKeyBinding(signedRequest: nil))
    }

    /// The broker's answer as a token, for the accept step: its application token kept; a device-bound app refresh
    /// token (`refresh_token_type` `bound_app_rt`), which only a redemption signed by the device's key can use, is
    /// not stored.
    func token(_ fields: [String: String], authority: MSALAuthority, scopes: [String], account: MSALAccount?,
               engine: ClientEngine, correlationId: UUID) throws -> BrokeredToken {
        var fields = fields
        if let token = fields["application_token"], !token.isEmpty, token.utf8.count <= 8192 {
            try? app.keyStore.setApplicationToken(token, clientId: engine.settings.clientId)
        }
        if fields["refresh_token_type"] == "bound_app_rt" {
            engine.log(correlationId).info("The broker's refresh token is bound to the device; it is not stored.")
            fields["refresh_token"] = nil
        }
        let response = try AuthenticatorBrokerResponse.tokenResponse(fields, now: engine.clock.now(), correlationId: correlationId)
        return BrokeredToken(response: response, authority: authority, descriptor: authority.descriptor, scopes: scopes,
                             account: account)
    }

    /// Takes an answer of the broker app that no request waits for: the answer to this application's request made
    /// before the app was relaunched (kept by ``MSALBrokerKeyStore/setPendingRequest(_:)``). Its tokens go through
    /// the accept step, so the next silent request finds them; true when the answer was this application's.
    func takeOrphanedAnswer(_ url: URL, sourceApplication: String?, engine: ClientEngine) -> Bool {
        guard let kept = try? app.keyStore.pendingRequest(), let resume = AuthenticatorResumeState(encoded: kept),
              resume.clientId == engine.settings.clientId, AuthenticatorBrokerResponse.answers(url, resume),
              let key = try? app.keyStore.brokerKey() else { return false }
        try? app.keyStore.setPendingRequest(nil)
        let correlationId = resume.correlationId
        NotificationCenter.default.post(name: NSNotification.Name(MSALWebAuthDidReceiveResponseFromBroker), object: nil)
        let fields: [String: String]
        do {
            fields = try AuthenticatorBrokerResponse.fields(url, key: key, resume: resume, sourceApplication: sourceApplication)
        } catch {
            engine.log(correlationId).warning("The broker's answer to a request made before the app was relaunched was refused.")
            return true
        }
        engine.log(correlationId).info("Storing the broker's answer to a request made before the app was relaunched.")
        Task {
            do {
                let authority = try MSALAuthority(url: URL(string: resume.authority) ?? engine.settings.authority.url)
                var token = try token(fields, authority: authority, scopes: resume.scopes, account: nil, engine: engine,
                                      correlationId: correlationId)
                token.proofOfPossession = orphanedBinding(resume, engine: engine)
                _ = try await engine.acceptBrokered(token, correlationId: correlationId, cache: engine.cache)
            } catch {
                engine.log(correlationId).warning("The broker's answer to a request made before the app was relaunched could not be stored.")
            }
        }
        return true
    }
}
