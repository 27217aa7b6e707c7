public import Foundation

/// The base of native authentication's errors: what the service or MSAL said, and the flow's correlation id. Each
/// subclass answers the questions an app's screen branches on (`isUserNotFound`, `isInvalidCode`, …); anything else
/// is a general error, shown with ``errorDescription``.
public class MSALNativeAuthError: LocalizedError, @unchecked Sendable, CustomStringConvertible {
    /// What went wrong: the service's `error_description`, or MSAL's own message.
    public let errorDescription: String?
    /// The correlation id of the flow's requests.
    public let correlationId: UUID
    /// The service's `error_codes` (AADSTS numbers), if any.
    public let errorCodes: [Int]
    /// The service's `error_uri`, if any.
    public let errorUri: String?
    let kind: NativeAuthErrorKind

    required init(_ kind: NativeAuthErrorKind, message: String?, correlationId: UUID, errorCodes: [Int] = [],
                  errorUri: String? = nil) {
        self.kind = kind
        self.errorDescription = message ?? kind.defaultMessage
        self.correlationId = correlationId
        self.errorCodes = errorCodes
        self.errorUri = errorUri
    }

    /// The app must sign the user in in the browser (`acquireToken`): the tenant needs a way of signing in that the
    /// app did not declare.
    public var isBrowserRequired: Bool { kind == .browserRequired }

    public var description: String {
        "\(String(describing: type(of: self)))(\(kind.rawValue)): \(errorDescription ?? "")"
    }
}

/// What a native-authentication error is about (the `is…` predicates); `general` for everything else.
package enum NativeAuthErrorKind: String, Sendable, Equatable {
    case browserRequired, userNotFound, invalidCredentials, invalidUsername, invalidCode, invalidPassword
    case userAlreadyExists, userDoesNotHavePassword, refreshTokenExpired, invalidScope
    case authMethodBlocked, invalidChallenge, invalidInput, verificationContactBlocked, general

    var defaultMessage: String {
        switch self {
        case .browserRequired: "The tenant requires a browser sign-in: call acquireToken."
        case .userNotFound: "No user has this username."
        case .invalidCredentials: "The username or password is wrong."
        case .invalidUsername: "The username is empty or not valid."
        case .invalidCode: "The code is wrong."
        case .invalidPassword: "The password is wrong or does not meet the tenant's rules."
        case .userAlreadyExists: "A user with this username already exists."
        case .userDoesNotHavePassword: "The user signs in without a password."
        case .refreshTokenExpired: "The refresh token expired: the user must sign in again."
        case .invalidScope: "A scope is not valid."
        case .authMethodBlocked: "The service blocked this authentication method."
        case .invalidChallenge: "The code is wrong."
        case .invalidInput: "The verification contact is not valid."
        case .verificationContactBlocked: "The service blocked this verification contact."
        case .general: "The request failed."
        }
    }
}

/// An error of ``MSALNativeAuthPublicClientApplication/signIn(parameters:delegate:)``.
public final class SignInStartError: MSALNativeAuthError, @unchecked Sendable {
    public var isUserNotFound: Bool { kind == .userNotFound }
    public var isInvalidCredentials: Bool { kind == .invalidCredentials }
    public var isInvalidUsername: Bool { kind == .invalidUsername }
}

/// An error of ``MSALNativeAuthPublicClientApplication/signUp(parameters:delegate:)``.
public final class SignUpStartError: MSALNativeAuthError, @unchecked Sendable {
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
    public var isInvalidPassword: Bool { kind == .invalidPassword }
    public var isInvalidUsername: Bool { kind == .invalidUsername }
}

/// An error of ``MSALNativeAuthPublicClientApplication/resetPassword(parameters:delegate:)``.
public final class ResetPasswordStartError: MSALNativeAuthError, @unchecked Sendable {
    public var isUserDoesNotHavePassword: Bool { kind == .userDoesNotHavePassword }
    public var isUserNotFound: Bool { kind == .userNotFound }
    public var isInvalidUsername: Bool { kind == .invalidUsername }
}

/// A submitted one-time passcode was not accepted.
public final class VerifyCodeError: MSALNativeAuthError, @unchecked Sendable {
    public var isInvalidCode: Bool { kind == .invalidCode }
}

/// A submitted password was not accepted.
public final class PasswordRequiredError: MSALNativeAuthError, @unchecked Sendable {
    public var isInvalidPassword: Bool { kind == .invalidPassword }
}

/// An error with no predicate but ``MSALNativeAuthError/isBrowserRequired``.
public class MSALNativeAuthGenericError: MSALNativeAuthError, @unchecked Sendable {}

/// A code could not be sent again.
public final class ResendCodeError: MSALNativeAuthGenericError, @unchecked Sendable {}
/// Sign-up's attributes were not accepted.
public final class AttributesRequiredError: MSALNativeAuthGenericError, @unchecked Sendable {}
/// The sign-in after a sign-up failed.
public final class SignInAfterSignUpError: MSALNativeAuthGenericError, @unchecked Sendable {}
/// The sign-in after a password reset failed.
public final class SignInAfterResetPasswordError: MSALNativeAuthGenericError, @unchecked Sendable {}

/// An access token could not be had for a native-authentication account.
public final class RetrieveAccessTokenError: MSALNativeAuthError, @unchecked Sendable {
    public var isRefreshTokenExpired: Bool { kind == .refreshTokenExpired }
    public var isInvalidScope: Bool { kind == .invalidScope }
}

/// An error of ``AwaitingMFAState/requestChallenge(authMethod:delegate:)`` and
/// ``MFARequiredState/requestChallenge(authMethod:delegate:)``.
public final class MFARequestChallengeError: MSALNativeAuthError, @unchecked Sendable {
    /// The service refuses to send codes to this method: the user picks another.
    public var isAuthMethodBlocked: Bool { kind == .authMethodBlocked }
}

/// An error of ``MFARequiredState/submitChallenge(challenge:delegate:)``.
public final class MFASubmitChallengeError: MSALNativeAuthError, @unchecked Sendable {
    /// The code is wrong: the state takes another.
    public var isInvalidChallenge: Bool { kind == .invalidChallenge }
}

/// An error of ``RegisterStrongAuthBaseState/challengeAuthMethod(parameters:delegate:)``.
public final class RegisterStrongAuthChallengeError: MSALNativeAuthError, @unchecked Sendable {
    /// The verification contact (an email address) is not valid.
    public var isInvalidInput: Bool { kind == .invalidInput }
    /// The service refuses this verification contact: the user gives another.
    public var isVerificationContactBlocked: Bool { kind == .verificationContactBlocked }
}

/// An error of ``RegisterStrongAuthVerificationRequiredState/submitChallenge(challenge:delegate:)``.
public final class RegisterStrongAuthSubmitChallengeError: MSALNativeAuthError, @unchecked Sendable {
    /// The code is wrong: the state takes another.
    public var isInvalidChallenge: Bool { kind == .invalidChallenge }
}
