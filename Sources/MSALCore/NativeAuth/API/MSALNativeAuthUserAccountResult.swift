public import Foundation

/// A user signed in by native authentication: the account, its ID token, access tokens from MSAL's silent flow, and
/// sign-out. Also what ``MSALNativeAuthPublicClientApplication/getNativeAuthUserAccount(correlationId:)`` returns
/// for the account in the cache.
public final class MSALNativeAuthUserAccountResult: Sendable {
    /// The signed-in account (the same as ``MSALPublicClientApplication/allAccounts()`` lists).
    public let account: MSALAccount
    /// The raw ID token of the sign-in, if the cache holds one.
    public let idToken: String?
    let application: MSALPublicClientApplication
    let scopes: [String]
    let correlationId: UUID

    init(account: MSALAccount, idToken: String?, application: MSALPublicClientApplication, scopes: [String],
         correlationId: UUID) {
        self.account = account
        self.idToken = idToken
        self.application = application
        self.scopes = scopes
        self.correlationId = correlationId
    }

    convenience init(signedIn result: MSALResult, application: MSALPublicClientApplication, scopes: [String], correlationId: UUID) {
        self.init(account: result.account, idToken: result.idToken, application: application, scopes: scopes,
                  correlationId: correlationId)
    }

    /// Signs the account out of this app: its tokens for this app are removed from the cache. No request is sent,
    /// and a browser session (from a browser fallback) is not ended.
    public func signOut() {
        do {
            try application.remove(account)
        } catch {
            application.engine.log(correlationId).warning("The account could not be removed from the cache: \(NativeAuthClient.message(error))")
        }
    }

    /// Gets an access token for the account: the cached one while valid, else by redeeming the refresh token.
    public func getAccessToken(parameters: MSALNativeAuthGetAccessTokenParameters, delegate: any CredentialsDelegate) {
        MainActorDelegate.run(delegate, { await self.accessTokenResult(parameters) }) { delegate, result in
            switch result {
            case .success(let token): delegate.onAccessTokenRetrieveCompleted(result: token.value)
            case .failure(let failure): delegate.onAccessTokenRetrieveError(error: failure.error)
            }
        }
    }

    /// Gets an access token for the account (MSAL for iOS/macOS's earlier form).
    public func getAccessToken(forceRefresh: Bool = false, correlationId: UUID? = nil, delegate: any CredentialsDelegate) {
        let parameters = MSALNativeAuthGetAccessTokenParameters()
        parameters.forceRefresh = forceRefresh
        parameters.correlationId = correlationId
        getAccessToken(parameters: parameters, delegate: delegate)
    }

    /// Gets an access token for the account.
    public func getAccessToken(parameters: MSALNativeAuthGetAccessTokenParameters = MSALNativeAuthGetAccessTokenParameters())
        async throws(RetrieveAccessTokenError) -> MSALNativeAuthTokenResult {
        try await accessTokenResult(parameters).unwrap().value
    }

    private func accessTokenResult(_ parameters: MSALNativeAuthGetAccessTokenParameters) async
        -> Result<Carried<MSALNativeAuthTokenResult>, NativeAuthFailure<RetrieveAccessTokenError>> {
        let correlationId = parameters.correlationId ?? CorrelationID.next()
        let silent = MSALSilentTokenParameters(scopes: parameters.scopes ?? scopes, account: account)
        silent.forceRefresh = parameters.forceRefresh
        silent.claimsRequest = parameters.claimsRequest
        silent.correlationId = correlationId
        do {
            let result = try await application.acquireTokenSilent(with: silent)
            let refreshToken = parameters.returnRefreshToken ? currentRefreshToken() : nil
            return .success(Carried(MSALNativeAuthTokenResult(accessToken: result.accessToken, refreshToken: refreshToken,
                                                              scopes: result.scopes, expiresOn: result.expiresOn,
                                                              correlationId: result.correlationId)))
        } catch let error as MSALErrorInfo {
            let kind: NativeAuthErrorKind = switch (error.code, error.oauthError) {
            case (_, "expired_refresh_token"?): .refreshTokenExpired
            case (_, "invalid_scope"?): .invalidScope
            case (.interactionRequired, _): .browserRequired
            default: .general
            }
            let codes = (error.stsErrorCodes ?? []).compactMap { Int($0) }
            let message = NativeAuthMessages.explained(error.errorDescription, codes: codes)
            return .failure(NativeAuthFailure(error: RetrieveAccessTokenError(kind, message: message,
                                                                              correlationId: correlationId, errorCodes: codes),
                                              canRetry: false))
        } catch {
            return .failure(NativeAuthFailure(error: RetrieveAccessTokenError(.general, message: NativeAuthClient.message(error),
                                                                              correlationId: correlationId),
                                              canRetry: false))
        }
    }

    /// The account's refresh token for this app, as the cache holds it now.
    private func currentRefreshToken() -> String? {
        guard let homeAccountId = account.identifier else { return nil }
        let engine = application.engine
        return try? engine.cache.read { document in
            document.refreshTokens(homeAccountId: homeAccountId, environments: KnownAliases.expand([account.environment]),
                                   clientId: engine.settings.clientId).first?.secret
        }
    }
}

/// An access token for a native-authentication account.
public final class MSALNativeAuthTokenResult: Sendable {
    /// The access token (a secret: never log it).
    public let accessToken: String
    /// The refresh token, only when ``MSALNativeAuthGetAccessTokenParameters/returnRefreshToken`` was set.
    public let refreshToken: String?
    /// The scopes the token grants.
    public let scopes: [String]
    /// When the access token expires.
    public let expiresOn: Date?
    let correlationId: UUID

    init(accessToken: String, refreshToken: String?, scopes: [String], expiresOn: Date?, correlationId: UUID) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.scopes = scopes
        self.expiresOn = expiresOn
        self.correlationId = correlationId
    }
}
