public import Foundation
import MSALSupport

/// The parameters of ``MSALConfidentialClientApplication/acquireTokenOnBehalfOf(with:)``: a middle-tier API,
/// called with a user's access token, gets a token for a downstream API on that user's behalf (OAuth 2.0
/// on-behalf-of, the JWT bearer grant with `requested_token_use=on_behalf_of`).
public final class MSALOnBehalfOfParameters: MSALParameters, @unchecked Sendable {
    private struct Settings: Sendable {
        var scopes: [String]
        var userAssertion: String
        var forceRefresh = false
        var correlationId: UUID?
        var claims: String?
        var popScheme: MSALAuthenticationSchemePop?
    }

    private let box: LockedBox<Settings>

    /// The downstream API's scopes, such as `["https://graph.microsoft.com/User.Read"]`. MSAL adds `openid`,
    /// `profile` and `offline_access`.
    public var scopes: [String] {
        get { box.get().scopes }
        set { box.withLock { $0.scopes = newValue } }
    }
    /// The access token this API was called with (the bearer token of the incoming request), after the API has
    /// validated it.
    public var userAssertion: String {
        get { box.get().userAssertion }
        set { box.withLock { $0.userAssertion = newValue } }
    }
    /// Skips the cached tokens of this assertion and asks the identity provider. Default false.
    public var forceRefresh: Bool {
        get { box.get().forceRefresh }
        set { box.withLock { $0.forceRefresh = newValue } }
    }
    /// The correlation id of the request; nil makes a new one.
    public var correlationId: UUID? {
        get { box.get().correlationId }
        set { box.withLock { $0.correlationId = newValue } }
    }
    /// A claims challenge from the downstream API (JSON); a request with claims skips the cache.
    public var claims: String? {
        get { box.get().claims }
        set { box.withLock { $0.claims = newValue } }
    }

    /// How the token is sent: ``MSALAuthenticationSchemeBearer`` (the default), or ``MSALAuthenticationSchemePop``
    /// for a token bound to the application's key (``MSALConfidentialClientApplicationConfig/popKeyStore``) and a
    /// result that carries a request signed for the downstream call, as MSAL.NET's
    /// `WithSignedHttpRequestProofOfPossession`. Bound tokens are cached under the key and the incoming assertion.
    public var authenticationScheme: any MSALAuthenticationSchemeProtocol {
        get { box.get().popScheme ?? MSALAuthenticationSchemeBearer() }
        set { box.withLock { $0.popScheme = newValue as? MSALAuthenticationSchemePop } }
    }

    /// Creates parameters for `scopes` on behalf of the user of `userAssertion`.
    public init(scopes: [String], userAssertion: String) {
        box = LockedBox(Settings(scopes: scopes, userAssertion: userAssertion))
        super.init()
    }

    func request() -> OnBehalfOfRequest {
        let settings = box.get()
        return OnBehalfOfRequest(scopes: settings.scopes, userAssertion: settings.userAssertion,
                                 forceRefresh: settings.forceRefresh,
                                 correlationId: settings.correlationId ?? CorrelationID.next(), claims: settings.claims,
                                 popScheme: settings.popScheme)
    }
}

/// An on-behalf-of request, copied from ``MSALOnBehalfOfParameters`` when the call starts.
struct OnBehalfOfRequest: Sendable {
    var scopes: [String]
    var userAssertion: String
    var forceRefresh: Bool
    var correlationId: UUID
    var claims: String?
    var popScheme: MSALAuthenticationSchemePop? = nil
}
