public import Foundation

/// The outcome of a successful token acquisition.
///
/// It never exposes a refresh token. Printing a result does not print its tokens.
public final class MSALResult: Sendable, CustomStringConvertible {
    /// What a result carries besides its correlation id; shared by results built from the same cached token.
    final class Payload: Sendable {
        let accessToken: String
        let expiresOn: Date?
        let extendedLifeTimeToken: Bool
        let idToken: String?
        let scopes: [String]
        let tenantProfile: MSALTenantProfile
        let account: MSALAccount
        let authority: MSALAuthority
        let authenticationScheme: String

        init(accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool, idToken: String?, scopes: [String],
             tenantProfile: MSALTenantProfile, account: MSALAccount, authority: MSALAuthority, authenticationScheme: String) {
            self.accessToken = accessToken
            self.expiresOn = expiresOn
            self.extendedLifeTimeToken = extendedLifeTimeToken
            self.idToken = idToken
            self.scopes = scopes
            self.tenantProfile = tenantProfile
            self.account = account
            self.authority = authority
            self.authenticationScheme = authenticationScheme
        }
    }

    let payload: Payload
    /// The correlation id of the request.
    public let correlationId: UUID
    /// How the token was obtained: from the cache or the identity provider, why the cache was not enough, and the
    /// time spent in the cache and in HTTP.
    public let metadata: MSALResultMetadata

    /// The access token (`""` when the server returned none). Send it as ``authorizationHeader``.
    public var accessToken: String { payload.accessToken }
    /// When the access token expires.
    public var expiresOn: Date? { payload.expiresOn }
    /// Whether the access token is past ``expiresOn`` but still within its extended lifetime (returned only when
    /// ``MSALPublicClientApplicationConfig/extendedLifetimeEnabled`` is set and the service is unavailable).
    public var extendedLifeTimeToken: Bool { payload.extendedLifeTimeToken }
    /// The raw id token, when the server returned one.
    public var idToken: String? { payload.idToken }
    /// The scopes the access token is valid for.
    public var scopes: [String] { payload.scopes }
    /// The tenant profile of the tenant the token was issued in.
    public var tenantProfile: MSALTenantProfile { payload.tenantProfile }
    /// The account the token belongs to.
    public var account: MSALAccount { payload.account }
    /// The authority that issued the token.
    public var authority: MSALAuthority { payload.authority }
    /// The authentication scheme: `Bearer`.
    public var authenticationScheme: String { payload.authenticationScheme }

    /// The value for the HTTP `Authorization` header: `Bearer <access token>`.
    public var authorizationHeader: String { "\(authenticationScheme) \(accessToken)" }

    init(payload: Payload, correlationId: UUID, metadata: MSALResultMetadata = MSALResultMetadata(tokenSource: .cache)) {
        self.payload = payload
        self.correlationId = correlationId
        self.metadata = metadata
    }

    /// The same result with `metadata`.
    func with(metadata: MSALResultMetadata) -> MSALResult {
        MSALResult(payload: payload, correlationId: correlationId, metadata: metadata)
    }

    convenience init(accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool, idToken: String?, scopes: [String],
                     tenantProfile: MSALTenantProfile, account: MSALAccount, authority: MSALAuthority, correlationId: UUID,
                     authenticationScheme: String = "Bearer") {
        self.init(payload: Payload(accessToken: accessToken, expiresOn: expiresOn, extendedLifeTimeToken: extendedLifeTimeToken,
                                   idToken: idToken, scopes: scopes, tenantProfile: tenantProfile, account: account,
                                   authority: authority, authenticationScheme: authenticationScheme),
                  correlationId: correlationId)
    }

    public var description: String {
        "MSALResult(account: \(account.username ?? account.identifier ?? "?"), scopes: \(scopes), "
            + "expiresOn: \(expiresOn.map { "\($0)" } ?? "nil"), accessToken: <redacted>)"
    }
}
