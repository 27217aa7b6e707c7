public import Foundation

/// What ``MSALNativeAuthPublicClientApplication/signIn(parameters:delegate:)`` signs in with.
public final class MSALNativeAuthSignInParameters: @unchecked Sendable {
    /// The user's email address (or username alias).
    @MSALLocked public var username: String
    /// The password, when the app collected it up front (a code challenge ignores it).
    @MSALLocked public var password: String?
    /// The scopes of the access token wanted besides `openid profile offline_access`.
    @MSALLocked public var scopes: [String]?
    /// Claims to request (the `claims` parameter).
    @MSALLocked public var claimsRequest: MSALClaimsRequest?
    /// The correlation id of the flow's requests; a new one when nil.
    @MSALLocked public var correlationId: UUID?

    public init(username: String) { self.username = username }
}

/// What ``MSALNativeAuthPublicClientApplication/signUp(parameters:delegate:)`` signs up with.
public final class MSALNativeAuthSignUpParameters: @unchecked Sendable {
    /// The user's email address.
    @MSALLocked public var username: String
    /// The password, when the app collected it up front.
    @MSALLocked public var password: String?
    /// Attributes of the new user by programmable name (`displayName`, `postalCode`, …): strings, numbers or
    /// booleans, typed `[String: Any]` as MSAL for iOS/macOS types them; any other value fails the sign-up with a
    /// general error.
    public var attributes: [String: Any]? {
        get { attributeValues?.values }
        set { attributeValues = newValue.map(SignUpAttributeValues.init) }
    }
    @MSALLocked private var attributeValues: SignUpAttributeValues?
    /// The correlation id of the flow's requests; a new one when nil.
    @MSALLocked public var correlationId: UUID?

    public init(username: String) { self.username = username }
}

/// What ``MSALNativeAuthPublicClientApplication/resetPassword(parameters:delegate:)`` resets.
public final class MSALNativeAuthResetPasswordParameters: @unchecked Sendable {
    /// The user's email address.
    @MSALLocked public var username: String
    /// The correlation id of the flow's requests; a new one when nil.
    @MSALLocked public var correlationId: UUID?

    public init(username: String) { self.username = username }
}

/// The sign-in that follows a completed sign-up (no second code or password).
public final class MSALNativeAuthSignInAfterSignUpParameters: @unchecked Sendable {
    @MSALLocked public var scopes: [String]?
    @MSALLocked public var claimsRequest: MSALClaimsRequest?
    public init() {}
}

/// The sign-in that follows a completed password reset (no second code or password).
public final class MSALNativeAuthSignInAfterResetPasswordParameters: @unchecked Sendable {
    @MSALLocked public var scopes: [String]?
    @MSALLocked public var claimsRequest: MSALClaimsRequest?
    public init() {}
}

/// What ``MSALNativeAuthUserAccountResult/getAccessToken(parameters:delegate:)`` gets.
public final class MSALNativeAuthGetAccessTokenParameters: @unchecked Sendable {
    /// Skip the cached access token and redeem the refresh token.
    @MSALLocked public var forceRefresh: Bool = false
    /// Put the refresh token in the result (``MSALNativeAuthTokenResult/refreshToken``).
    @MSALLocked public var returnRefreshToken: Bool = false
    /// The scopes of the access token; the sign-in's when nil.
    @MSALLocked public var scopes: [String]?
    @MSALLocked public var claimsRequest: MSALClaimsRequest?
    @MSALLocked public var correlationId: UUID?
    public init() {}
}

/// Sign-up attributes as the app gave them. Only read to encode them (NativeFlowOutcomes.attributesJSON), which keeps
/// strings, numbers and booleans, all values that can cross threads.
struct SignUpAttributeValues: @unchecked Sendable {
    let values: [String: Any]
}
