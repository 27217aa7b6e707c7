package import Foundation

/// The one mapping from a broker's errors to MSAL's, with a table per broker family:
/// - the Apple brokers (Microsoft Authenticator's `broker_error_domain`/`broker_error_code`, the Enterprise SSO
///   extension's underlying error) report the common core's errors, which MSAL for iOS/macOS converts code by code
///   (``msidTable``);
/// - the Linux broker reports msalruntime's statuses (``BrokerError``'s table);
/// - an OAuth error in any broker's answer maps as the identity platform's own (``OAuthErrorBody``).
package enum BrokerErrorMapping {
    /// The common core's domains (`IdentityCore/src/MSIDError.m:44-47`).
    package static let msidErrorDomain = "MSIDErrorDomain"
    package static let msidOAuthErrorDomain = "MSIDOAuthErrorDomain"
    package static let msidHttpErrorCodeDomain = "MSIDHttpErrorCodeDomain"
    package static let msalErrorDomain = "MSALErrorDomain"
    /// `ASAuthorizationErrorDomain`.
    package static let authorizationErrorDomain = "com.apple.AuthenticationServices.AuthorizationError"

    /// The common core's userInfo keys that carry OAuth fields (`MSIDError.m:26-43`), and MSAL's.
    package static let descriptionKeys = ["MSIDErrorDescriptionKey", "MSALErrorDescriptionKey", "NSLocalizedDescription"]
    package static let oauthErrorKeys = ["MSIDOAuthErrorKey", "MSALOAuthErrorKey"]
    package static let oauthSubErrorKeys = ["MSIDOAuthSubErrorKey", "MSALOAuthSubErrorKey"]

    enum Mapped: Sendable, Equatable {
        case error(MSALError)
        case internalError(MSALInternalError)
    }

    /// MSAL for iOS/macOS's table from the common core's codes (`MSIDErrorDomain`, `MSIDOAuthErrorDomain`,
    /// `MSIDHttpErrorCodeDomain`: one table whatever the domain) to MSAL's (`MSAL/src/MSALErrorConverter.m:49-147`;
    /// the codes: `IdentityCore/src/MSIDError.h:93-383`). A code not in the table is `internalErrorUnexpected`, as
    /// the converter classifies an unknown code (`MSALErrorConverter.m:232-257`).
    static let msidTable: [Int: Mapped] = {
        var table: [Int: Mapped] = [
            -51112: .internalError(.internalErrorInvalidParameter),        // InvalidDeveloperParameter
            -51113: .internalError(.internalErrorAccountRequired),         // MissingAccountParameter
            -51115: .error(.interactionRequired),                          // InteractionRequired
            -51117: .internalError(.internalErrorMismatchedUser),          // MismatchedAccount
            -51118: .internalError(.internalErrorRedirectSchemeNotRegistered),
            -51119: .internalError(.internalErrorInvalidRedirectURI),
            -51400: .internalError(.internalErrorAuthorizationFailed),     // ServerOauth
            -51401: .internalError(.internalErrorInvalidResponse),         // ServerInvalidResponse
            -51410: .internalError(.internalErrorInvalidRequest),
            -51411: .internalError(.internalErrorInvalidClient),
            -51412: .internalError(.internalErrorInvalidGrant),
            -51413: .internalError(.internalErrorInvalidScope),
            -51414: .internalError(.internalErrorUnauthorizedClient),
            -51415: .error(.serverDeclinedScopes),
            -51416: .error(.userCanceled),                                 // ServerAccessDenied
            -51417: .error(.serverError),
            -51420: .internalError(.internalErrorInvalidState),
            -51430: .error(.serverProtectionPoliciesRequired),
            -51440: .internalError(.internalErrorAuthorizationFailed),
            -51500: .internalError(.internalErrorUnhandledResponse),
            -51501: .internalError(.internalErrorUnexpectedHttpResponse),
            -51600: .internalError(.internalErrorFailedAuthorityValidation),
            -51700: .error(.userCanceled),                                 // UserCancel
            -51701: .error(.userCanceled),                                 // SessionCanceledProgrammatically
            -51710: .internalError(.internalErrorInteractiveSessionAlreadyRunning),
            -51720: .internalError(.internalErrorNoViewController),
            -51730: .internalError(.internalErrorAttemptToOpenURLFromExtension),
            -51731: .internalError(.internalErrorUINotSupportedInExtension),
            -51732: .error(.insufficientDeviceStrength),
            -51733: .error(.mdmEnrollmentCompletedNeedsRetry),
            -51810: .error(.workplaceJoinRequired),
            -51814: .internalError(.internalBrokerNotAvailable),
            -50142: .error(.serverInvalidRequestResetPasswordRequired),
        ]
        // The broker's own codes, -51800…-51813 (but -51810), are MSAL's -42700…-42713 (`MSALErrorConverter.m:81-94`).
        for offset in 0...13 where offset != 10 {
            if let internalCode = MSALInternalError(rawValue: -42700 - offset) { table[-51800 - offset] = .internalError(internalCode) }
        }
        // The just-in-time and Platform SSO codes, -51817…-51845, are MSAL's -42715…-42744 in the same order
        // (`MSALErrorConverter.m:96-124`; the server-confirmation timeout, -51816, is not in MSAL's table).
        let jit: [(Int, Int)] = [(-51817, -42715), (-51818, -42716), (-51819, -42717), (-51820, -42718), (-51821, -42719),
                                 (-51822, -42720), (-51823, -42721), (-51824, -42722), (-51825, -42723), (-51826, -42724),
                                 (-51827, -42725), (-51828, -42726), (-51829, -42727), (-51830, -42728), (-51831, -42729),
                                 (-51832, -42730), (-51833, -42731), (-51834, -42732), (-51835, -42734), (-51836, -42735),
                                 (-51837, -42736), (-51838, -42737), (-51839, -42738), (-51840, -42739), (-51841, -42740),
                                 (-51842, -42741), (-51843, -42742), (-51844, -42743), (-51845, -42744)]
        for (msid, msal) in jit {
            if let internalCode = MSALInternalError(rawValue: msal) { table[msid] = .internalError(internalCode) }
        }
        return table
    }()

    /// The MSAL error of an Apple broker's error: `domain` and `code` as the broker reported them, `userInfo` the
    /// string values of its userInfo (the description and OAuth fields under the common core's or MSAL's keys).
    /// The common core's domains go through MSAL's table; `MSALErrorDomain` keeps its code; any other domain (the
    /// system's) is an unknown broker error naming it, as MSAL keeps a foreign domain's code
    /// (`MSALErrorConverter.m:297-298`).
    package static func apple(domain: String, code: Int, userInfo: [String: String] = [:], correlationId: UUID?) -> MSALErrorInfo {
        func first(_ keys: [String]) -> String? { keys.lazy.compactMap { userInfo[$0] }.first { !$0.isEmpty } }
        let text = first(descriptionKeys).map { String($0.prefix(512)) }
        let description = "The broker failed" + (text.map { ": \($0)" } ?? ".")
        var result: MSALErrorInfo
        switch domain {
        case msidErrorDomain, msidOAuthErrorDomain, msidHttpErrorCodeDomain:
            switch msidTable[code] {
            case .error(let publicCode)?:
                let internalCode: MSALInternalError? = publicCode == .userCanceled ? .internalErrorSessionCanceled : nil
                result = MSALErrorInfo(publicCode, internalCode: internalCode, description: description, correlationId: correlationId)
            case .internalError(let internalCode)?:
                result = .internal(internalCode, description, correlationId: correlationId)
            case nil:
                result = .internal(.internalErrorUnexpected, "\(description) (\(domain) \(code))", correlationId: correlationId)
            }
        case msalErrorDomain:
            if let known = MSALError(rawValue: code) {
                result = MSALErrorInfo(known, description: description, correlationId: correlationId)
            } else if let internalCode = MSALInternalError(rawValue: code) {
                result = .internal(internalCode, description, correlationId: correlationId)
            } else {
                result = .internal(.internalErrorBrokerUnknown, "\(description) (\(domain) \(code))", correlationId: correlationId)
            }
        default:
            result = .internal(.internalErrorBrokerUnknown, "\(description) (\(domain.prefix(128)) \(code))",
                               correlationId: correlationId)
        }
        result.oauthError = first(oauthErrorKeys)
        result.oauthSubError = first(oauthSubErrorKeys)
        return result
    }

    /// The SSO extension's failure of an `ASAuthorizationController` request, as the common core reads it
    /// (`MSIDSSOExtensionRequestDelegate.m:51-96`): cancelled (1001) → ``MSALError/userCanceled``; not interactive
    /// (1005) → ``MSALError/interactionRequired``; -6000 → the extension's own error underneath (`underlying`), or a
    /// corrupted answer without one. For a sign-in (`interactive`), the failures MSAL answers with its own web view
    /// (`MSIDSSOExtensionInteractiveTokenRequestController.m:91-117`: 1000, 1003, 1004 and the common core's
    /// -51815) are ``MSALInternalError/internalBrokerNotAvailable``, so that the library's own flow runs; a request
    /// no extension handles (1003) is that for every operation.
    package static func ssoExtension(domain: String, code: Int, underlying: (domain: String, code: Int, userInfo: [String: String])?,
                                     interactive: Bool, correlationId: UUID?) -> MSALErrorInfo {
        let fallsBack: (String, Int) -> Bool = { domain, code in
            (domain == authorizationErrorDomain && [1000, 1003, 1004].contains(code))
                || (domain == msidErrorDomain && code == -51815)
        }
        if domain == authorizationErrorDomain, code == 1003 || (interactive && fallsBack(domain, code)) {
            return .internal(.internalBrokerNotAvailable, "The SSO extension did not handle the request (\(code)).",
                             correlationId: correlationId)
        }
        guard domain == authorizationErrorDomain else {
            return apple(domain: domain, code: code, correlationId: correlationId)
        }
        switch code {
        case 1001:
            return MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                                 description: "The SSO extension's sign-in was canceled.", correlationId: correlationId)
        case 1005:
            return .interactionRequired("The SSO extension needs to show its user interface.", correlationId: correlationId)
        case -6000:
            guard let underlying else {
                return .internal(.internalErrorBrokerCorruptedResponse, "The SSO extension failed without an error.",
                                 correlationId: correlationId)
            }
            if interactive, fallsBack(underlying.domain, underlying.code) {
                return .internal(.internalBrokerNotAvailable, "The SSO extension failed unexpectedly; using the web view.",
                                 correlationId: correlationId)
            }
            return apple(domain: underlying.domain, code: underlying.code, userInfo: underlying.userInfo,
                         correlationId: correlationId)
        default:
            return .internal(.internalErrorBrokerUnknown, "The SSO extension failed (\(code)).", correlationId: correlationId)
        }
    }

    /// The MSAL error of an OAuth error in a broker's answer (`error`, `error_description`, `suberror`,
    /// `error_codes`), as the identity platform's own.
    static func oauth(_ fields: [String: String], correlationId: UUID) -> MSALErrorInfo? {
        guard let error = fields["error"], !error.isEmpty else { return nil }
        let codes = (fields["error_codes"] ?? "").split(whereSeparator: { !$0.isNumber }).prefix(16).map(String.init)
        return OAuthErrorBody(error: error, errorDescription: fields["error_description"], subError: fields["suberror"],
                              errorCodes: codes)
            .msalError(httpStatus: nil, headers: nil, correlationId: correlationId)
    }
}
