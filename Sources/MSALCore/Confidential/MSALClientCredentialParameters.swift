public import Foundation
import Dispatch
import MSALSupport

/// The parameters of ``MSALConfidentialClientApplication/acquireTokenForClient(with:)``: a token the application
/// gets as itself (OAuth 2.0 client credentials grant).
public final class MSALClientCredentialParameters: MSALParameters, @unchecked Sendable {
    private struct Settings: Sendable {
        var scopes: [String] { didSet { scopeSet = ScopeSet(scopes) } }
        /// ``scopes`` as the cache matches them, made once per change rather than per call.
        private(set) var scopeSet: ScopeSet
        var authority: MSALAuthority?
        var forceRefresh = false
        var correlationId: UUID?
        var extraQueryParameters: [String: String]?
        var claims: String?
        /// ``authenticationScheme`` when it is proof of possession; nil for bearer (a plain field: the cache hit
        /// path copies these settings on every call).
        var popScheme: MSALAuthenticationSchemePop?

        init(scopes: [String]) {
            self.scopes = scopes
            self.scopeSet = ScopeSet(scopes)
        }
    }

    private let box: LockedBox<Settings>

    /// The scopes: exactly one resource's `/.default`, such as `["https://graph.microsoft.com/.default"]`. The
    /// token carries the application permissions (app roles) granted to the app on that resource.
    public var scopes: [String] {
        get { box.get().scopes }
        set { box.withLock { $0.scopes = newValue } }
    }
    /// The authority (tenant) for this request; nil uses the application's. A multi-tenant daemon names each
    /// tenant here; tokens are cached per tenant and never mixed.
    public var authority: MSALAuthority? {
        get { box.get().authority }
        set { box.withLock { $0.authority = newValue } }
    }
    /// Skips the token cache and asks the identity provider. Default false.
    public var forceRefresh: Bool {
        get { box.get().forceRefresh }
        set { box.withLock { $0.forceRefresh = newValue } }
    }
    /// The correlation id of the request; nil makes a new one.
    public var correlationId: UUID? {
        get { box.get().correlationId }
        set { box.withLock { $0.correlationId = newValue } }
    }
    /// Extra parameters for the token request.
    public var extraQueryParameters: [String: String]? {
        get { box.get().extraQueryParameters }
        set { box.withLock { $0.extraQueryParameters = newValue } }
    }
    /// A claims challenge from a resource (JSON); a request with claims skips the token cache.
    public var claims: String? {
        get { box.get().claims }
        set { box.withLock { $0.claims = newValue } }
    }

    /// The kind of token: ``MSALAuthenticationSchemeBearer`` (the default) or ``MSALAuthenticationSchemePop``, a token
    /// bound to the application's key and returned inside a request signed for one HTTP call (as MSAL.NET's
    /// `WithSignedHttpRequestProofOfPossession`).
    public var authenticationScheme: any MSALAuthenticationSchemeProtocol {
        get { box.get().popScheme ?? MSALAuthenticationSchemeBearer() }
        set { box.withLock { $0.popScheme = newValue as? MSALAuthenticationSchemePop } }
    }

    /// Creates parameters for `scopes`.
    public init(scopes: [String]) {
        box = LockedBox(Settings(scopes: scopes))
        super.init()
    }

    /// The settings of one call, read together.
    func request() -> ClientCredentialsRequest {
        let settings = box.get()
        return ClientCredentialsRequest(scopes: settings.scopes, scopeSet: settings.scopeSet, authority: settings.authority,
                                        forceRefresh: settings.forceRefresh,
                                        correlationId: settings.correlationId ?? CorrelationID.next(),
                                        extraQueryParameters: settings.extraQueryParameters ?? [:],
                                        claims: settings.claims,
                                        popScheme: settings.popScheme)
    }
}

/// A client credentials request, copied from ``MSALClientCredentialParameters`` when the call starts.
struct ClientCredentialsRequest: Sendable {
    var scopes: [String]
    var scopeSet: ScopeSet
    var authority: MSALAuthority?
    var forceRefresh: Bool
    var correlationId: UUID
    var extraQueryParameters: [String: String]
    var claims: String?
    /// A proof-of-possession request; nil for a bearer token.
    var popScheme: MSALAuthenticationSchemePop? = nil
}
