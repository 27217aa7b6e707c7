public import Foundation

/// Where a token came from.
public enum MSALTokenSource: String, Sendable {
    /// The token cache: no request was sent.
    case cache
    /// The identity provider (or the managed identity endpoint).
    case identityProvider
    /// The device's identity broker (``MSALBrokerOptions``).
    case broker
}

/// A token an application got as itself (client credentials, managed identity): no account, no id token.
///
/// Printing a result does not print its token.
public struct MSALAppTokenResult: Sendable, CustomStringConvertible {
    /// The access token. Send it as ``authorizationHeader``.
    public let accessToken: String
    /// When the access token expires.
    public let expiresOn: Date
    /// The scopes the token was requested for.
    public let scopes: [String]
    /// The tenant the token was issued in.
    public let tenantId: String
    /// Whether the token came from the cache or the identity provider.
    public let tokenSource: MSALTokenSource
    /// The correlation id of the request.
    public let correlationId: UUID
    /// How the token was obtained: its source again, why the cache was not enough, and the time spent in the cache
    /// and in HTTP.
    public let metadata: MSALResultMetadata

    /// The authentication scheme: `Bearer`, or `Pop` for a proof-of-possession request (``accessToken`` is then the
    /// signed request).
    public let authenticationScheme: String

    /// The value for the HTTP `Authorization` header: `Bearer <access token>` (or `Pop <signed request>`).
    public var authorizationHeader: String { "\(authenticationScheme) \(accessToken)" }

    init(accessToken: String, expiresOn: Date, scopes: [String], tenantId: String, tokenSource: MSALTokenSource,
         correlationId: UUID, metadata: MSALResultMetadata? = nil, authenticationScheme: String = "Bearer") {
        self.authenticationScheme = authenticationScheme
        self.accessToken = accessToken
        self.expiresOn = expiresOn
        self.scopes = scopes
        self.tenantId = tenantId
        self.tokenSource = tokenSource
        self.correlationId = correlationId
        self.metadata = metadata ?? MSALResultMetadata(tokenSource: tokenSource)
    }

    /// The same result with `metadata` (whose source is this result's).
    func with(metadata: MSALResultMetadata) -> MSALAppTokenResult {
        MSALAppTokenResult(accessToken: accessToken, expiresOn: expiresOn, scopes: scopes, tenantId: tenantId,
                           tokenSource: tokenSource, correlationId: correlationId,
                           metadata: MSALResultMetadata(tokenSource: tokenSource,
                                                        cacheRefreshReason: metadata.cacheRefreshReason,
                                                        durationTotal: metadata.durationTotal,
                                                        durationInCache: metadata.durationInCache,
                                                        durationInHTTP: metadata.durationInHTTP,
                                                        refreshOn: metadata.refreshOn),
                           authenticationScheme: authenticationScheme)
    }

    public var description: String {
        "MSALAppTokenResult(tenantId: \(tenantId), scopes: \(scopes), expiresOn: \(expiresOn), "
            + "tokenSource: \(tokenSource.rawValue), accessToken: <redacted>)"
    }
}
