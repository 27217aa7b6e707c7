import Foundation

/// A grant sent to the token endpoint (RFC 6749 §4–6 and its extensions): what each grant contributes to the one
/// send step, ``ClientEngine/postGrant(_:endpoint:descriptor:correlationId:extraHeaders:throttleKey:)``, and to the
/// one redeem step of user tokens, ``ClientEngine/redeem(_:grant:cache:)``.
///
/// A grant is pure: it only builds its form body. The send step adds the client's authentication when the
/// application is a confidential client, so no grant carries a secret or an assertion of the application's own.
/// The authorization code, device code, refresh token, on-behalf-of and client credentials grants conform; a grant
/// added later (native authentication's continuation token, a broker's) conforms the same way and gets the retry,
/// throttling, validation and storage of every other grant.
protocol TokenGrant: Sendable {
    /// The `grant_type` form parameter.
    static var grantType: String { get }
    /// The form body, `grant_type` included, without the client's authentication.
    var formParameters: [(String, String)] { get }
}

extension RefreshTokenGrantRequest: TokenGrant {}
extension DeviceCodeGrantRequest: TokenGrant {}
extension AuthorizationCodeGrantRequest: TokenGrant {}
extension OnBehalfOfGrantRequest: TokenGrant {}
extension ClientCredentialsGrantRequest: TokenGrant {}
