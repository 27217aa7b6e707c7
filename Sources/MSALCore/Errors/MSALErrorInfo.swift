public import Foundation

/// The error every MSAL API throws or passes to its completion block.
///
/// It bridges to `NSError` exactly as MSAL for iOS/macOS reports errors, so existing code keeps working:
///
/// ```swift
/// let nsError = error as NSError
/// if nsError.domain == MSALErrorDomain && nsError.code == MSALError.interactionRequired.rawValue {
///     // sign the user in interactively
/// }
/// ```
///
/// Swift code can also read the typed properties, or test a code with `~=`:
///
/// ```swift
/// do { try await app.acquireTokenSilent(with: parameters) }
/// catch let error as MSALErrorInfo where error.code == .interactionRequired { ... }
/// catch where MSALError.serverError ~= error { ... }
/// ```
///
/// Descriptions are meant for developers. They never contain a token or other secret. The properties are
/// read-only outside MSAL: an error reports what happened and is not changed on its way to the application.
public struct MSALErrorInfo: Error, CustomNSError, CustomStringConvertible, Sendable {
    /// The code an application acts on.
    public package(set) var code: MSALError
    /// The diagnostic code, when ``code`` is ``MSALError/internal`` (or to refine another code).
    public package(set) var internalCode: MSALInternalError?
    /// A description for developers. Never contains a token.
    public package(set) var errorDescription: String
    /// The OAuth `error` the server returned, such as `invalid_grant`.
    public package(set) var oauthError: String?
    /// The OAuth `suberror` the server returned, such as `bad_token`.
    public package(set) var oauthSubError: String?
    /// The STS error codes the server returned (`error_codes`), as strings.
    public package(set) var stsErrorCodes: [String]?
    /// The HTTP status code of the failed request.
    public package(set) var httpStatusCode: Int?
    /// The response headers of the failed request.
    public package(set) var httpHeaders: [String: String]?
    /// The correlation id of the request.
    public package(set) var correlationId: UUID?
    /// Scopes the server declined (``MSALError/serverDeclinedScopes``).
    public package(set) var declinedScopes: [String]?
    /// Scopes the server granted (``MSALError/serverDeclinedScopes``).
    public package(set) var grantedScopes: [String]?
    /// The result that failed validation; for declined scopes it holds a usable token for the granted scopes.
    public package(set) var invalidResult: MSALResult?
    /// The home account id of the account involved.
    public package(set) var homeAccountId: String?
    /// The error that caused this one, if any (for example a network error).
    public package(set) var underlyingError: (any Error & Sendable)?
    /// The kind of transport failure, when the request failed on the way (see ``networkErrorKind``).
    package var transportFailureKind: MSALNetworkErrorKind?

    /// Creates an error. Applications normally only receive these.
    public init(
        _ code: MSALError,
        internalCode: MSALInternalError? = nil,
        description: String,
        oauthError: String? = nil,
        oauthSubError: String? = nil,
        correlationId: UUID? = nil,
        underlyingError: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.internalCode = internalCode
        self.errorDescription = description
        self.oauthError = oauthError
        self.oauthSubError = oauthSubError
        self.correlationId = correlationId
        self.underlyingError = underlyingError
    }

    /// An ``MSALError/internal`` error carrying `internalCode`.
    public static func `internal`(
        _ internalCode: MSALInternalError,
        _ description: String,
        correlationId: UUID? = nil,
        underlyingError: (any Error & Sendable)? = nil
    ) -> MSALErrorInfo {
        MSALErrorInfo(.internal, internalCode: internalCode, description: description,
                      correlationId: correlationId, underlyingError: underlyingError)
    }

    /// An invalid-parameter error (`MSALInternalError.internalErrorInvalidParameter`).
    public static func invalidParameter(_ description: String, correlationId: UUID? = nil) -> MSALErrorInfo {
        .internal(.internalErrorInvalidParameter, description, correlationId: correlationId)
    }

    // MARK: CustomNSError

    public static var errorDomain: String { MSALErrorDomain }

    public var errorCode: Int { code.rawValue }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [
            MSALErrorDescriptionKey: errorDescription,
            NSLocalizedDescriptionKey: errorDescription,
        ]
        if let internalCode { info[MSALInternalErrorCodeKey] = internalCode.rawValue }
        if let oauthError { info[MSALOAuthErrorKey] = oauthError }
        if let oauthSubError { info[MSALOAuthSubErrorKey] = oauthSubError }
        if let stsErrorCodes { info[MSALSTSErrorCodesKey] = stsErrorCodes }
        if let httpStatusCode { info[MSALHTTPResponseCodeKey] = String(httpStatusCode) }
        if let httpHeaders { info[MSALHTTPHeadersKey] = httpHeaders }
        if let correlationId { info[MSALCorrelationIDKey] = correlationId.uuidString }
        if let declinedScopes { info[MSALDeclinedScopesKey] = declinedScopes }
        if let grantedScopes { info[MSALGrantedScopesKey] = grantedScopes }
        if let invalidResult { info[MSALInvalidResultKey] = invalidResult }
        if let homeAccountId { info[MSALHomeAccountIdKey] = homeAccountId }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        if let networkErrorKind { info[MSALNetworkErrorKindKey] = networkErrorKind.rawValue }
        return info
    }

    // MARK: CustomStringConvertible

    public var description: String {
        var parts = ["MSALError.\(code)"]
        if let internalCode { parts.append("(\(internalCode))") }
        parts.append(errorDescription)
        if let oauthError {
            parts.append("[oauth error: \(oauthError)" + (oauthSubError.map { ", suberror: \($0)" } ?? "") + "]")
        }
        if let stsErrorCodes, !stsErrorCodes.isEmpty { parts.append("[sts codes: \(stsErrorCodes.joined(separator: ","))]") }
        if let httpStatusCode { parts.append("[http \(httpStatusCode)]") }
        if let transportFailureKind { parts.append("[network: \(transportFailureKind.rawValue)]") }
        if let correlationId { parts.append("[correlation id: \(correlationId.uuidString)]") }
        return parts.joined(separator: " ")
    }
}

/// Whether `value` is an MSAL error with code `pattern` (`MSALError.interactionRequired ~= error`).
public func ~= (pattern: MSALError, value: any Error) -> Bool {
    let nsError = value as NSError
    return nsError.domain == MSALErrorDomain && nsError.code == pattern.rawValue
}

/// Matches any ``MSALError/internal`` error whose internal code is `pattern`.
public func ~= (pattern: MSALInternalError, value: any Error) -> Bool {
    let nsError = value as NSError
    return nsError.domain == MSALErrorDomain
        && (nsError.userInfo[MSALInternalErrorCodeKey] as? Int) == pattern.rawValue
}
