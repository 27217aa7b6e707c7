public import Foundation

/// The authentication scheme of a token: what ``MSALResult/authorizationHeader`` starts with.
public enum MSALAuthScheme: Int, Sendable {
    /// A bearer token (RFC 6750): whoever holds it can use it.
    case bearer = 0
    /// A proof-of-possession token: the access token bound to a key, sent inside a request signed with that key
    /// (a signed HTTP request), so that it is useless without the key.
    case pop = 1
}

/// The HTTP method a proof-of-possession request is signed for.
public enum MSALHttpMethod: Int, Sendable, CaseIterable {
    case GET = 0, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH
}

/// The HTTP method's name, as it goes on the wire and in a signed request's `m` claim (`GET`, `POST`, ...).
public func MSALParameterStringForHttpMethod(_ httpMethod: MSALHttpMethod) -> String {
    switch httpMethod {
    case .GET: return "GET"
    case .HEAD: return "HEAD"
    case .POST: return "POST"
    case .PUT: return "PUT"
    case .DELETE: return "DELETE"
    case .CONNECT: return "CONNECT"
    case .OPTIONS: return "OPTIONS"
    case .TRACE: return "TRACE"
    case .PATCH: return "PATCH"
    }
}

/// An authentication scheme a token request asks for (``MSALTokenParameters/authenticationScheme``):
/// ``MSALAuthenticationSchemeBearer`` (the default) or ``MSALAuthenticationSchemePop``.
public protocol MSALAuthenticationSchemeProtocol: Sendable {
    /// The scheme.
    var scheme: MSALAuthScheme { get }
    /// Its name, as ``MSALResult/authenticationScheme`` and the `Authorization` header give it: `Bearer` or `Pop`.
    var authenticationScheme: String { get }
}

/// Bearer tokens: the default scheme.
public final class MSALAuthenticationSchemeBearer: MSALAuthenticationSchemeProtocol {
    /// The bearer scheme.
    public init() {}

    public var scheme: MSALAuthScheme { .bearer }
    public var authenticationScheme: String { "Bearer" }
}

/// Proof-of-possession tokens for one HTTP request: the identity provider binds the access token to the application's
/// key (RSA-2048; `req_cnf` names it by its RFC 7638 thumbprint, the `kid`), and the result's
/// ``MSALResult/accessToken`` is a signed HTTP request for `httpMethod` and `requestUrl` carrying it: send
/// ``MSALResult/authorizationHeader`` (`Pop <signed request>`) with that request only. The bound access token is cached
/// under its key; the signed request never is, so each call signs anew (a new timestamp and nonce).
///
/// As in MSAL for iOS/macOS, the key is the application's own (``MSALPublicClientApplicationConfig/popKeyStore``);
/// `keyPair` brings one of the caller's instead, as MSAL for iOS/macOS's external key pairs and MSAL for Python's
/// app-owned `req_cnf` do.
public final class MSALAuthenticationSchemePop: MSALAuthenticationSchemeProtocol {
    /// The method the request is signed for (the `m` claim).
    public let httpMethod: MSALHttpMethod
    /// The request's URL: its host (the `u` claim) and path (the `p` claim).
    public let requestUrl: URL
    /// The nonce the resource gave (`WWW-Authenticate: PoP nonce="…"`), else a new random one per signed request.
    public let nonce: String?
    /// More claims for the signed request, each a string, number, Boolean, array or object (others are dropped);
    /// they never replace the claims the scheme sets.
    public let additionalParameters: [String: any Sendable]
    /// The caller's key, or nil for the application's.
    public let keyPair: MSALPoPKeyPair?

    /// Proof of possession for one request, with the application's key.
    public convenience init(httpMethod: MSALHttpMethod, requestUrl: URL, nonce: String?,
                            additionalParameters: [AnyHashable: Any]?) {
        self.init(httpMethod: httpMethod, requestUrl: requestUrl, nonce: nonce, additionalParameters: additionalParameters,
                  keyPair: nil)
    }

    /// Proof of possession for one request, with `keyPair` (nil: the application's key).
    public init(httpMethod: MSALHttpMethod, requestUrl: URL, nonce: String?, additionalParameters: [AnyHashable: Any]?,
                keyPair: MSALPoPKeyPair?) {
        self.httpMethod = httpMethod
        self.requestUrl = requestUrl
        self.nonce = nonce
        self.additionalParameters = SignedHTTPRequest.jsonSafe(additionalParameters ?? [:])
        self.keyPair = keyPair
    }

    public var scheme: MSALAuthScheme { .pop }
    public var authenticationScheme: String { "Pop" }
}
