public import Foundation
import Dispatch

extension MSALConfidentialClientApplication {
    // MARK: Web app sign-in

    /// Starts a web app's sign-in: the URL to redirect the user's browser to, and what to keep in the user's
    /// session until the response comes back (``MSALAuthorizationCodeFlow``). No request is sent but, the first
    /// time, the authority's metadata.
    public func startAuthorizationCodeFlow(with parameters: MSALAuthorizationCodeParameters) async throws
        -> MSALAuthorizationCodeFlow {
        let r = parameters.request()
        return try await ErrorBoundary.run(.interactive, correlationId: r.correlationId) { [engine] in
            try await engine.startAuthorizationCodeFlow(
                scopes: r.scopes, redirectUri: r.redirectUri, loginHint: r.loginHint, domainHint: r.domainHint,
                prompt: r.prompt, responseMode: r.responseMode, extra: r.extra, correlationId: r.correlationId)
        }
    }

    /// Completes a web app's sign-in with the parameters the redirect carried (query or form post): checks the
    /// `state` against `flow` (``MSALInternalError/internalErrorInvalidState`` otherwise, before anything is sent),
    /// turns an OAuth error into its ``MSALErrorInfo``, redeems the code with the app's credential and PKCE verifier,
    /// validates the id token and its nonce, and caches the tokens: the account's later tokens come from
    /// ``acquireTokenSilent(with:)``. A flow is for one response: discard it once used.
    public func acquireToken(byAuthorizationCodeFlow flow: MSALAuthorizationCodeFlow,
                             response: [String: String]) async throws -> MSALResult {
        try await acquireToken(byAuthorizationCodeFlow: flow, response: response,
                               authenticationScheme: MSALAuthenticationSchemeBearer())
    }

    /// ``acquireToken(byAuthorizationCodeFlow:response:)`` with the token sent as `authenticationScheme` says: an
    /// ``MSALAuthenticationSchemePop`` binds the code's token to the application's key
    /// (``MSALConfidentialClientApplicationConfig/popKeyStore``), and the result carries a request signed for the
    /// scheme's HTTP call, as MSAL.NET's `WithSignedHttpRequestProofOfPossession`; later PoP tokens for the account come
    /// from ``acquireTokenSilent(with:)`` with the same scheme.
    public func acquireToken(byAuthorizationCodeFlow flow: MSALAuthorizationCodeFlow, response: [String: String],
                             authenticationScheme: any MSALAuthenticationSchemeProtocol) async throws -> MSALResult {
        let correlationId = CorrelationID.next()
        let popScheme = authenticationScheme as? MSALAuthenticationSchemePop
        return try await ErrorBoundary.run(.interactive, correlationId: correlationId) { [self] in
            try await engine.measured {
                try await engine.acquireToken(byAuthorizationCodeFlow: flow, response: response,
                                              correlationId: correlationId, popScheme: popScheme) { [self] homeAccountId in
                    await port(homeAccountId)
                }
            }
        }
    }

    /// Gets a token for a signed-in user of the web app without interaction: from the cache, else with the
    /// account's refresh token (authenticated with the app's credential). ``MSALError/interactionRequired`` means the
    /// user must sign in again.
    public func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        let request = parameters.silentRequest()
        return try await ErrorBoundary.run(.silent, correlationId: request.correlationId) { [self] in
            try await engine.acquireTokenSilentMeasured(request, cache: await port(request.account?.identifier))
        }
    }

    /// Gets a token for a signed-in user without interaction; see ``acquireTokenSilent(with:)``.
    public func acquireTokenSilent(with parameters: MSALSilentTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        let queue = parameters.completionBlockQueue ?? .global()
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenSilent(with: parameters)
        }
    }

    /// The users signed in to this web app, from its token cache. With a partitioned cache, none: accounts are
    /// found by identifier (``loadAccount(forIdentifier:)``).
    public func allAccounts() throws -> [MSALAccount] {
        try ErrorBoundary.runSync(.accounts, correlationId: CorrelationID.next()) { try engine.allAccounts() }
    }

    /// The account with home account id `identifier`, or nil. With a partitioned cache, only when its partition is
    /// in memory: ``loadAccount(forIdentifier:)`` reads it from the storage too.
    public func account(forIdentifier identifier: String) throws -> MSALAccount? {
        try ErrorBoundary.runSync(.accounts, correlationId: CorrelationID.next()) {
            guard let port = memoryPort(identifier) else { return nil }
            return try engine.accounts(matching: MSALAccountEnumerationParameters(identifier: identifier), cache: port).first
        }
    }

    /// Signs a user out of the web app: removes the account's tokens from the cache and returns the authority's
    /// end-session URL to redirect the browser to (with `post_logout_redirect_uri` when given), or nil when the
    /// authority has none.
    public func signOut(_ account: MSALAccount, postLogoutRedirectUri: String? = nil) async throws -> URL? {
        let correlationId = CorrelationID.next()
        return try await ErrorBoundary.run(.signOut, correlationId: correlationId) { [self] in
            try await engine.signOut(account, fromBrowser: true,
                                     extraQueryParameters: postLogoutRedirectUri.map { ["post_logout_redirect_uri": $0] },
                                     correlationId: correlationId, cache: await port(account.identifier))
        }
    }
}
