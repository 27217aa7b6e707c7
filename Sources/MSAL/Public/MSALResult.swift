import Foundation

/// The outcome of a successful token acquisition.
///
/// It never exposes a refresh token. Printing a result does not print its tokens.
public final class MSALResult: Sendable, CustomStringConvertible {
    /// The access token (`""` when the server returned none). Send it as ``authorizationHeader``.
    public let accessToken: String
    /// When the access token expires.
    public let expiresOn: Date?
    /// Whether the access token is past ``expiresOn`` but still within its extended lifetime (returned only when
    /// ``MSALPublicClientApplicationConfig/extendedLifetimeEnabled`` is set and the service is unavailable).
    public let extendedLifeTimeToken: Bool
    /// The raw id token, when the server returned one.
    public let idToken: String?
    /// The scopes the access token is valid for.
    public let scopes: [String]
    /// The tenant profile of the tenant the token was issued in.
    public let tenantProfile: MSALTenantProfile
    /// The account the token belongs to.
    public let account: MSALAccount
    /// The authority that issued the token.
    public let authority: MSALAuthority
    /// The correlation id of the request.
    public let correlationId: UUID
    /// The authentication scheme: `Bearer`.
    public let authenticationScheme: String

    /// The value for the HTTP `Authorization` header: `Bearer <access token>`.
    public var authorizationHeader: String { "\(authenticationScheme) \(accessToken)" }

    init(accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool, idToken: String?, scopes: [String],
         tenantProfile: MSALTenantProfile, account: MSALAccount, authority: MSALAuthority, correlationId: UUID,
         authenticationScheme: String = "Bearer") {
        self.accessToken = accessToken
        self.expiresOn = expiresOn
        self.extendedLifeTimeToken = extendedLifeTimeToken
        self.idToken = idToken
        self.scopes = scopes
        self.tenantProfile = tenantProfile
        self.account = account
        self.authority = authority
        self.correlationId = correlationId
        self.authenticationScheme = authenticationScheme
    }

    public var description: String {
        "MSALResult(account: \(account.username ?? account.identifier ?? "?"), scopes: \(scopes), "
            + "expiresOn: \(expiresOn.map { "\($0)" } ?? "nil"), accessToken: <redacted>)"
    }
}
