import Foundation

/// What a native-authentication request of one app goes through: its engine (transport, clock, cache, the one
/// redeem step), the CIAM authority and what the app declared. Shared by the application and its state objects.
struct NativeAuthClient: Sendable {
    let engine: ClientEngine
    let authority: MSALAuthority
    let challengeTypes: NativeAuthChallengeTypes
    let capabilities: MSALNativeAuthCapabilities
    /// The app's request interceptor (its `x-` headers), if any.
    var interceptor: NativeAuthInterceptor? = nil

    var clientId: String { engine.settings.clientId }

    /// What redeeming a native-authentication grant on the token endpoint gave.
    enum Redeemed: Sendable {
        /// Tokens, validated and stored in the app's cache.
        case signedIn(MSALResult)
        /// An OAuth error the flow's machine decides on (a wrong code or password, an unknown user).
        case rejected(NativeAuthServerError)
        /// The service wants a browser sign-in.
        case browserRequired(String?)
        /// Anything else (transport, a malformed answer, a token response that failed validation).
        case failed(String)
    }

    /// `POST {authority}/{path}` with `form` (and `client_id`): the answer, or `.malformed` with what failed when
    /// no answer could be had. Retries and back-off are the token endpoint client's.
    func post(_ path: String, _ form: [(String, String)], correlationId: UUID) async -> NativeAuthAnswer {
        let endpoint = authority.url.appendingPathComponent(path)
        let context = engine.requestContext(correlationId)
        let headers = await interceptor?.headers(for: endpoint, context: context) ?? [:]
        do {
            let response = try await TokenEndpointClient(context: context)
                .postRaw(endpoint, parameters: [("client_id", clientId)] + form, extraHeaders: headers)
            return NativeAuthAnswer.parse(status: response.statusCode, body: response.body)
        } catch {
            return .malformed(Self.message(error))
        }
    }

    /// Redeems `grant` on the authority's token endpoint through the engine's redeem step (validation, storage,
    /// result); an OAuth error is handed back for the flow to decide on.
    func redeem(_ grant: some TokenGrant, scopes: [String], correlationId: UUID) async -> Redeemed {
        do {
            let resolved = try await engine.resolve(authority.descriptor, correlationId: correlationId)
            let context = engine.requestContext(correlationId)
            let headers = await interceptor?.headers(for: resolved.metadata.tokenEndpoint, context: context) ?? [:]
            let client = TokenEndpointClient(context: context)
            let response = try await client.postRaw(resolved.metadata.tokenEndpoint, parameters: grant.formParameters,
                                                    extraHeaders: headers)
            guard (200..<300).contains(response.statusCode) else {
                switch NativeAuthAnswer.parse(status: response.statusCode, body: response.body) {
                case .error(let error): return .rejected(error)
                case .browserRequired(let reason): return .browserRequired(reason)
                default: return .failed(client.errorFor(response).errorDescription)
                }
            }
            if case .browserRequired(let reason) = NativeAuthAnswer.parse(status: response.statusCode, body: response.body) {
                return .browserRequired(reason)
            }
            var parsed = try TokenResponse.parse(response.body, correlationId: correlationId)
            parsed.serverDate = response.header("Date").flatMap(HTTPDate.parse)
            // The account entry names the grant that created it (`account_source`, as MSAL for Python records it).
            let redemption = TokenRedemption(resolved: resolved, scopes: scopes, correlationId: correlationId,
                                             authority: authority, requiresIdToken: true,
                                             accountSource: type(of: grant).grantType)
            return .signedIn(try await engine.accept(parsed, redemption, cache: engine.cache))
        } catch {
            return .failed(Self.message(error))
        }
    }

    /// One signed-in account per app, as MSAL for iOS/macOS keeps it: after a native sign-in, this app's other
    /// accounts are signed out of it (their tokens for this client removed; other apps sharing the cache keep theirs).
    func keepOnly(_ account: MSALAccount) {
        guard let accounts = try? engine.allAccounts() else { return }
        for other in accounts where other.identifier != account.identifier {
            try? engine.remove(other)
        }
    }

    /// A failure's message for a general error (never a secret: MSAL's errors carry none).
    static func message(_ error: any Error) -> String {
        if let info = error as? MSALErrorInfo { return info.errorDescription }
        return "The request could not be completed: \(type(of: error))."
    }
}
