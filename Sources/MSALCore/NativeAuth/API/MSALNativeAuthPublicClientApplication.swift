public import Foundation

/// Native authentication for Microsoft Entra External ID: the app signs users in with its own screens (email and
/// one-time passcode, email and password) instead of a browser, and gets ordinary MSAL tokens in the same cache.
///
/// ```swift
/// let nativeAuth = try MSALNativeAuthPublicClientApplication(clientId: "<client id>", tenantSubdomain: "contoso",
///                                                            challengeTypes: [.OOB, .password])
/// let parameters = MSALNativeAuthSignInParameters(username: "ada@contoso.com")
/// switch try await nativeAuth.signIn(parameters: parameters) {
/// case .codeRequired(let sent):   // the user reads the code in their mail
///     let result = try await sent.newState.submitCode(code: code)
/// case .passwordRequired(let state):
///     let result = try await state.submitPassword(password: password)
/// case .completed(let result):
///     let token = try await result.getAccessToken()
/// }
/// ```
///
/// Every step also has MSAL for iOS/macOS's delegate form (``signIn(parameters:delegate:)``), whose callbacks run on
/// the main actor. An ``MSALNativeAuthError/isBrowserRequired`` error means the tenant needs a browser sign-in: the
/// application is an ``MSALPublicClientApplication``, so `acquireToken` is at hand for that, and `acquireTokenSilent`
/// and the account methods see native-authentication accounts.
public final class MSALNativeAuthPublicClientApplication: MSALPublicClientApplication, @unchecked Sendable {
    private let authorityValue: MSALAuthority
    private let challengeTypes: MSALNativeAuthChallengeTypes
    private let capabilities: MSALNativeAuthCapabilities
    private let interceptor: NativeAuthInterceptor?

    /// Creates the application. Throws ``MSALInternalError/internalErrorInvalidParameter`` when the configuration's
    /// authority is not a CIAM authority, and what ``MSALPublicClientApplication`` throws for the rest.
    ///
    /// `platform` supplies what the configuration leaves unset; the `MSAL` module's `init(nativeAuthConfiguration:)`
    /// passes the platform's own.
    public init(nativeAuthConfiguration configuration: MSALNativeAuthPublicClientApplicationConfig,
                platform: MSALPlatformServices) throws {
        let authority = configuration.authority
        guard authority.descriptor.kind == .ciam else {
            throw MSALErrorInfo.invalidParameter("Native authentication needs a CIAM authority (https://<tenant>.ciamlogin.com).")
        }
        authorityValue = authority
        challengeTypes = configuration.challengeTypes
        capabilities = configuration.capabilities
        interceptor = configuration.interceptor
        try super.init(configuration: configuration, platform: platform, sessions: .process)
    }

    var native: NativeAuthClient {
        NativeAuthClient(engine: engine, authority: authorityValue, challengeTypes: challengeTypes.core,
                         capabilities: capabilities, interceptor: interceptor)
    }

    // MARK: Sign-in

    /// Starts a sign-in: the delegate hears whether a code or the password is needed, or that the user is signed in
    /// (a password given in the parameters is used when the service asks for one).
    public func signIn(parameters: MSALNativeAuthSignInParameters, delegate: any SignInStartDelegate) {
        let session = signInSession(parameters)
        MainActorDelegate.run(delegate, { await self.signInResult(session) }) { delegate, result in
            switch result {
            case .success(let outcome):
                switch outcome.value {
                case .codeRequired(let sent):
                    delegate.onSignInCodeRequired(newState: sent.newState, sentTo: sent.sentTo,
                                                  channelTargetType: sent.channelTargetType, codeLength: sent.codeLength)
                case .passwordRequired(let state): delegate.onSignInPasswordRequired(newState: state)
                case .completed(let account):
                    NativeAuthMissingCallback.reporting({ [box = MainActorDelegate(delegate: delegate), id = account.correlationId] in
                        box.delegate.onSignInStartError(error: SignInStartError(.general, message: $0, correlationId: id))
                    }) { delegate.onSignInCompleted(result: account) }
                case .awaitingMFA(let methods, let state):
                    SignInOutcome.awaitingMFA(authMethods: methods, newState: state).deliver(delegate, completed: { _ in }) {
                        [box = MainActorDelegate(delegate: delegate), id = state.correlationId] in
                        box.delegate.onSignInStartError(error: SignInStartError(.general, message: $0, correlationId: id))
                    }
                case .strongAuthMethodRegistration(let methods, let state):
                    SignInOutcome.strongAuthMethodRegistration(authMethods: methods, newState: state).deliver(delegate, completed: { _ in }) {
                        [box = MainActorDelegate(delegate: delegate), id = state.correlationId] in
                        box.delegate.onSignInStartError(error: SignInStartError(.general, message: $0, correlationId: id))
                    }
                }
            case .failure(let failure): delegate.onSignInStartError(error: failure.error)
            }
        }
    }

    /// Starts a sign-in (MSAL for iOS/macOS's earlier form).
    public func signIn(username: String, password: String? = nil, scopes: [String]? = nil, correlationId: UUID? = nil,
                       delegate: any SignInStartDelegate) {
        let parameters = MSALNativeAuthSignInParameters(username: username)
        parameters.password = password
        parameters.scopes = scopes
        parameters.correlationId = correlationId
        signIn(parameters: parameters, delegate: delegate)
    }

    /// Starts a sign-in and returns where it stands.
    public func signIn(parameters: MSALNativeAuthSignInParameters) async throws(SignInStartError) -> SignInStartOutcome {
        try await signInResult(signInSession(parameters)).unwrap().value
    }

    private func signInSession(_ parameters: MSALNativeAuthSignInParameters) -> NativeSignInSession {
        let claims = ClaimsParameter.build(capabilities: engine.settings.clientCapabilities,
                                           claimsRequest: parameters.claimsRequest)
        return NativeSignInSession(client: native, username: parameters.username, password: parameters.password,
                                   scopes: parameters.scopes ?? [], claims: claims,
                                   correlationId: parameters.correlationId ?? CorrelationID.next())
    }

    private func signInResult(_ session: NativeSignInSession) async -> Result<Carried<SignInStartOutcome>, NativeAuthFailure<SignInStartError>> {
        switch await session.start() {
        case .codeRequired(let sentTo, let channel, let length):
            let state = SignInCodeRequiredState(session: session, application: self)
            return .success(Carried(.codeRequired(MSALNativeAuthCodeRequired(
                newState: state, sentTo: sentTo, channelTargetType: MSALNativeAuthChannelType(value: channel), codeLength: length))))
        case .passwordRequired:
            return .success(Carried(.passwordRequired(SignInPasswordRequiredState(session: session, application: self))))
        case let outcome:
            let signedIn: Result<Carried<SignInOutcome>, NativeAuthFailure<SignInStartError>> =
                NativeSignInOutcomes.signedIn(outcome, application: self, session: session)
            return signedIn.map { carried in
                switch carried.value {
                case .completed(let result): Carried(.completed(result))
                case .awaitingMFA(let methods, let state): Carried(.awaitingMFA(authMethods: methods, newState: state))
                case .strongAuthMethodRegistration(let methods, let state):
                    Carried(.strongAuthMethodRegistration(authMethods: methods, newState: state))
                }
            }
        }
    }

    // MARK: The signed-in account

    /// The account signed in to this app, from the cache (no request), or nil. With several (signed in by other
    /// means), the first.
    public func getNativeAuthUserAccount(correlationId: UUID? = nil) -> MSALNativeAuthUserAccountResult? {
        let correlationId = correlationId ?? CorrelationID.next()
        guard let account = (try? allAccounts())?.first, let homeAccountId = account.identifier else { return nil }
        let clientId = engine.settings.clientId
        let environments = KnownAliases.expand([account.environment])
        let realm = account.homeAccountId?.tenantId ?? ""
        let cached = try? engine.cache.read { document -> (String?, [String]) in
            let idToken = document.idToken(homeAccountId: homeAccountId, environments: environments, realm: realm,
                                           clientId: clientId)?.secret
                ?? document.idTokens(homeAccountId: homeAccountId, environments: environments, clientId: clientId).first?.secret
            let newest = document.accessTokens.bucket(home: CacheStrings.lower(homeAccountId), client: CacheStrings.lower(clientId),
                                                      realm: CacheStrings.lower(realm))
                .max { ($0.cachedAt ?? .distantPast) < ($1.cachedAt ?? .distantPast) }
            let reserved: Set<String> = ["openid", "profile", "offline_access"]
            let scopes = newest.map { $0.target.split(separator: " ").map(String.init).filter { !reserved.contains($0.lowercased()) } } ?? []
            return (idToken, scopes)
        }
        return MSALNativeAuthUserAccountResult(account: account, idToken: cached?.0, application: self,
                                               scopes: cached?.1 ?? [], correlationId: correlationId)
    }
}
