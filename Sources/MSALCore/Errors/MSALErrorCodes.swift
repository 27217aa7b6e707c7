import Foundation

/// The error domain of every error MSAL reports: `"MSALErrorDomain"`.
///
/// ```swift
/// let nsError = error as NSError
/// if nsError.domain == MSALErrorDomain && nsError.code == MSALError.interactionRequired.rawValue { ... }
/// ```
public let MSALErrorDomain = "MSALErrorDomain"

/// The error codes an application can act on. `(error as NSError).code` holds one of these raw values.
///
/// Everything that is not one of the recoverable codes is reported as ``MSALError/internal``, with the
/// specific ``MSALInternalError`` in the user info under ``MSALInternalErrorCodeKey``.
public enum MSALError: Int, Sendable, CaseIterable {
    /// An error without a more specific code; see ``MSALInternalErrorCodeKey`` in the user info.
    case `internal` = -50000
    /// The device must be registered (workplace-joined) to reach the resource.
    case workplaceJoinRequired = -50001
    /// The request needs the user: call `acquireToken(with:)` (interactive) to continue.
    case interactionRequired = -50002
    /// The server granted fewer scopes than asked for; see ``MSALDeclinedScopesKey`` and ``MSALGrantedScopesKey``.
    case serverDeclinedScopes = -50003
    /// The resource requires app-protection policies (Intune).
    case serverProtectionPoliciesRequired = -50004
    /// The user cancelled the interactive sign-in.
    case userCanceled = -50005
    /// The identity provider answered with an error, or could not be reached.
    case serverError = -50006
    /// The device does not meet the resource's authentication-strength requirement.
    case insufficientDeviceStrength = -50007
    /// Device-management enrollment finished; retry the request.
    case mdmEnrollmentCompletedNeedsRetry = -50008
    /// The user must reset their password (STS error 50142).
    case serverInvalidRequestResetPasswordRequired = -50142
}

/// Diagnostic error codes, found under ``MSALInternalErrorCodeKey`` when the error code is ``MSALError/internal``.
public enum MSALInternalError: Int, Sendable, CaseIterable {
    /// A parameter the application passed is missing or malformed.
    case internalErrorInvalidParameter = -42000
    /// The redirect URI scheme is not registered for this application.
    case internalErrorRedirectSchemeNotRegistered = -42001
    /// The server rejected the request as malformed (`invalid_request`).
    case internalErrorInvalidRequest = -42002
    /// The server does not recognise the client (`invalid_client`).
    case internalErrorInvalidClient = -42003
    /// The grant is invalid or expired (`invalid_grant`).
    case internalErrorInvalidGrant = -42004
    /// A scope is invalid (`invalid_scope`).
    case internalErrorInvalidScope = -42005
    /// The client may not use this grant (`unauthorized_client`).
    case internalErrorUnauthorizedClient = -42006
    /// The server's response could not be handled.
    case internalErrorUnhandledResponse = -42007
    /// Something happened that MSAL did not expect.
    case internalErrorUnexpected = -42008
    /// The server answered with an unexpected HTTP status.
    case internalErrorUnexpectedHttpResponse = -42009
    /// The authority could not be validated.
    case internalErrorFailedAuthorityValidation = -42010
    /// The redirect URI is invalid.
    case internalErrorInvalidRedirectURI = -42011
    /// The server returned a different account than the one requested.
    case internalErrorMismatchedUser = -42101
    /// Several accounts match where one was expected.
    case internalErrorAmbiguousAccount = -42102
    /// The authorization failed.
    case internalErrorAuthorizationFailed = -42104
    /// The call needs an account.
    case internalErrorAccountRequired = -42106
    /// The interactive session was cancelled.
    case internalErrorSessionCanceled = -42401
    /// Another interactive sign-in is already in progress.
    case internalErrorInteractiveSessionAlreadyRunning = -42402
    /// No view controller to present the sign-in (Apple platforms).
    case internalErrorNoViewController = -42403
    /// An app extension tried to open a URL.
    case internalErrorAttemptToOpenURLFromExtension = -42404
    /// Interactive sign-in is not supported in app extensions.
    case internalErrorUINotSupportedInExtension = -42405
    /// The `state` returned by the server does not match the one sent.
    case internalErrorInvalidState = -42501
    /// The server's response is invalid.
    case internalErrorInvalidResponse = -42600
    /// A non-https redirect was returned where https is required.
    case internalErrorNonHttpsRedirect = -42602
    /// No response was received from the broker.
    case internalErrorBrokerResponseNotReceived = -42700
    /// A broker answer arrived with no request waiting for it.
    case internalErrorBrokerNoResumeStateFound = -42701
    /// The state kept for the broker request is unusable.
    case internalErrorBrokerBadResumeStateFound = -42702
    /// The broker's answer is for another request.
    case internalErrorBrokerMismatchedResumeState = -42703
    /// The broker's answer has no hash.
    case internalErrorBrokerResponseHashMissing = -42704
    /// The broker's answer is corrupted.
    case internalErrorBrokerCorruptedResponse = -42705
    /// The broker's answer cannot be decrypted with the application's broker key.
    case internalErrorBrokerResponseDecryptionFailed = -42706
    /// The broker's answer does not match its hash.
    case internalErrorBrokerResponseHashMismatch = -42707
    /// The broker key could not be made or stored.
    case internalErrorBrokerKeyFailedToCreate = -42708
    /// The broker key is missing.
    case internalErrorBrokerKeyNotFound = -42709
    /// The broker failed without a known error.
    case internalErrorBrokerUnknown = -42711
    /// The broker's application token could not be stored.
    case internalErrorBrokerApplicationTokenWriteFailed = -42712
    /// The broker's application token could not be read.
    case internalErrorBrokerApplicationTokenReadFailed = -42713
    /// The broker is not available.
    case internalBrokerNotAvailable = -42714
    /// Just-in-time linking: waiting for the server's confirmation failed.
    case internalErrorJITLinkServerConfirmationError = -42715
    /// Just-in-time linking: the Intune token could not be acquired.
    case internalErrorJITLinkAcquireTokenError = -42716
    /// Just-in-time linking: the token was acquired for another tenant.
    case internalErrorJITLinkTokenAcquiredWrongTenant = -42717
    /// Just-in-time linking failed.
    case internalErrorJITLinkError = -42718
    /// Just-in-time compliance check: the device is not compliant.
    case internalErrorJITComplianceCheckResultNotCompliant = -42719
    /// Just-in-time compliance check: Company Portal timed out.
    case internalErrorJITComplianceCheckResultTimeout = -42720
    /// Just-in-time compliance check: the result is unknown.
    case internalErrorJITComplianceCheckResultUnknown = -42721
    /// Just-in-time compliance check: the link payload of the SSO configuration is invalid.
    case errorJITComplianceCheckInvalidLinkPayload = -42722
    /// Just-in-time compliance check: its web view controller could not be created.
    case errorJITComplianceCheckCreateController = -42723
    /// Just-in-time linking: the link configuration was not found.
    case errorJITLinkConfigNotFound = -42724
    /// Just-in-time linking: the link token configuration is invalid.
    case errorJITInvalidLinkTokenConfig = -42725
    /// Just-in-time registration: device registration failed.
    case errorJITWPJDeviceRegistrationFailed = -42726
    /// Just-in-time registration: the account identifier is missing.
    case errorJITWPJAccountIdentifierNil = -42727
    /// Just-in-time registration: the broker token could not be acquired.
    case errorJITWPJAcquireTokenError = -42728
    /// Just-in-time registration or linking must be retried.
    case errorJITRetryRequired = -42729
    /// Just-in-time troubleshooting: Company Portal's web flow answered an unexpected status.
    case errorJITUnknownStatusWebCP = -42730
    /// Just-in-time troubleshooting: its web view controller could not be created.
    case errorJITTroubleshootingCreateController = -42731
    /// Just-in-time troubleshooting: a token could not be acquired.
    case errorJITTroubleshootingAcquireToken = -42732
    /// Just-in-time linking: the server's confirmation timed out.
    case internalErrorJITLinkServerConfirmationTimeout = -42733
    /// Just-in-time troubleshooting is needed.
    case errorJITTroubleshootingRequired = -42734
    /// Just-in-time troubleshooting: the result is unknown.
    case errorJITTroubleshootingResultUnknown = -42735
    /// The device is not registered for Platform SSO.
    case errorDeviceNotPSSORegistered = -42736
    /// Platform SSO: the key id kept by the passkey provider does not match the device key; configure and retry.
    case errorPSSOKeyIdMismatch = -42737
    /// Just-in-time error handling: its configuration is invalid or missing.
    case errorJITErrorHandlingConfigNotFound = -42738
    /// Platform SSO passkey: the biometric policy does not match the login configuration.
    case errorPSSOBiometricPolicyMismatch = -42739
    /// Platform SSO passkey: an invalid passkey extension tried to use the passkey.
    case errorPSSOInvalidPasskeyExtension = -42740
    /// Platform SSO: the login configuration could not be saved.
    case errorPSSOSaveLoginConfigFailure = -42741
    /// Platform SSO passkey: the passkey was used without biometrics while a biometric policy is configured.
    case errorPSSOPasskeyLAError = -42742
    /// Platform SSO: user registration needs biometrics, which are not available.
    case errorPSSOBiometricsNotAvailable = -42743
    /// Platform SSO: user registration needs biometrics, which are not enrolled.
    case errorPSSOBiometricsNotEnrolled = -42744
    /// The web authentication URL is invalid.
    case internalErrorInvalidASWebAuthenticationURL = -42745
    /// Another process held a token cache lock for longer than the wait allowed (MSAL for Swift).
    case internalErrorTokenCacheLockTimeout = -42900
}

/// The OAuth `error` value returned by the server (`String`).
public let MSALOAuthErrorKey = "MSALOAuthErrorKey"
/// The OAuth `suberror` value returned by the server (`String`).
public let MSALOAuthSubErrorKey = "MSALOAuthSubErrorKey"
/// A description of the OAuth sub-error (`String`).
public let MSALOAuthSubErrorDescriptionKey = "MSALOAuthSubErrorDescriptionKey"
/// A description of the error for developers (`String`); never contains a token.
public let MSALErrorDescriptionKey = "MSALErrorDescriptionKey"
/// The STS error codes returned by the server (`[String]`, for example `["50076"]`).
public let MSALSTSErrorCodesKey = "MSALSTSErrorCodesKey"
/// The ``MSALInternalError`` raw value (`Int`) of an ``MSALError/internal`` error.
public let MSALInternalErrorCodeKey = "MSALInternalErrorCodeKey"
/// The response headers of the failed HTTP request (`[String: String]`).
public let MSALHTTPHeadersKey = "MSALHTTPHeadersKey"
/// The HTTP status code of the failed request (`String`, as MSAL for iOS/macOS reports it).
public let MSALHTTPResponseCodeKey = "MSALHTTPResponseCodeKey"
/// The correlation id of the failed request (`String`).
public let MSALCorrelationIDKey = "MSALCorrelationIDKey"
/// The scopes the server declined (`[String]`), for ``MSALError/serverDeclinedScopes``.
public let MSALDeclinedScopesKey = "MSALDeclinedScopesKey"
/// The scopes the server granted (`[String]`), for ``MSALError/serverDeclinedScopes``.
public let MSALGrantedScopesKey = "MSALGrantedScopesKey"
/// The ``MSALResult`` that failed validation (for example with declined scopes); usable for the granted scopes.
public let MSALInvalidResultKey = "MSALInvalidResultKey"
/// The user id to display (`String`).
public let MSALDisplayableUserIdKey = "MSALDisplayableUserIdKey"
/// The broker version (`String`).
public let MSALBrokerVersionKey = "MSALBrokerVersionKey"
/// The home account id of the account involved (`String`).
public let MSALHomeAccountIdKey = "MSALHomeAccountIdKey"
/// Set (`true`) when the error was answered from the client-side throttling cache without a request.
public let MSALThrottlingCacheHitKey = "MSALThrottlingCacheHitKey"
