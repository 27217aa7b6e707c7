import Foundation

/// A successful token endpoint response, as Entra returns it (RFC 6749 §5.1 plus Microsoft's fields).
/// Unknown members are ignored (RFC 6749 §5.1).
struct TokenResponse: Sendable {
    var accessToken: String?
    /// `token_type`; nil when the server sent none (RFC 6749 §5.1 requires it, so the handler refuses that).
    var tokenType: String?
    /// `expires_in`, in seconds (at most ``ExternalNumber/maximumLifetime``).
    var expiresIn: TimeInterval?
    /// `ext_expires_in`, in seconds (at most ``ExternalNumber/maximumLifetime``).
    var extExpiresIn: TimeInterval?
    /// `refresh_in`, in seconds (at most ``ExternalNumber/maximumLifetime``).
    var refreshIn: TimeInterval?
    /// `scope` split on spaces, original case.
    var scopes: [String]?
    var refreshToken: String?
    var idToken: String?
    var clientInfo: String?
    /// `foci`: the family id.
    var familyId: String?
    /// The identity provider's clock, from the HTTP `Date` header of the response; nil when absent or unreadable.
    var serverDate: Date?

    /// Parses a JSON token response body. Throws when the body is not a JSON object, or when a lifetime is not a
    /// usable number (see ``ExternalNumber``).
    static func parse(_ body: Data, correlationId: UUID) throws -> TokenResponse {
        guard let object = JSONValue.parseObject(body) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidResponse,
                                         "The token response is not a JSON object.", correlationId: correlationId)
        }
        func string(_ key: String) -> String? {
            switch object[key] {
            case .string(let s)?: return s.isEmpty ? nil : s
            case .number(let n)?: return ExternalNumber.integerText(n)
            default: return nil
            }
        }
        func seconds(_ key: String) throws -> TimeInterval? {
            try ExternalNumber.lifetime(object[key], field: key, in: "the token response", correlationId: correlationId)
        }
        return TokenResponse(
            accessToken: string("access_token"),
            tokenType: string("token_type"),
            expiresIn: try seconds("expires_in"),
            extExpiresIn: try seconds("ext_expires_in"),
            refreshIn: try seconds("refresh_in"),
            scopes: string("scope").map { $0.split(separator: " ").map(String.init) },
            refreshToken: string("refresh_token"),
            idToken: string("id_token"),
            clientInfo: string("client_info"),
            familyId: string("foci")
        )
    }
}

/// An OAuth error body (`error`, `error_description`, `error_codes`, `suberror`, ...), from the token endpoint or
/// an authorization redirect.
struct OAuthErrorBody: Sendable {
    var error: String
    var errorDescription: String?
    var subError: String?
    var errorCodes: [String]
    var correlationId: String?
    var additionalInfo: String?

    init(error: String, errorDescription: String? = nil, subError: String? = nil, errorCodes: [String] = [],
         correlationId: String? = nil, additionalInfo: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.subError = subError
        self.errorCodes = errorCodes
        self.correlationId = correlationId
        self.additionalInfo = additionalInfo
    }

    /// Reads an error body; nil when the body has no `error` member.
    static func parse(_ body: Data) -> OAuthErrorBody? {
        guard let object = JSONValue.parseObject(body), let error = object["error"]?.stringValue, !error.isEmpty else {
            return nil
        }
        let codes: [String] = object["error_codes"]?.arrayValue?.compactMap { value in
            if case .number(let n) = value { return ExternalNumber.integerText(n) }
            return value.stringValue
        } ?? []
        return OAuthErrorBody(error: error,
                              errorDescription: object["error_description"]?.stringValue,
                              subError: object["suberror"]?.stringValue,
                              errorCodes: codes,
                              correlationId: object["correlation_id"]?.stringValue,
                              additionalInfo: object["error_additional_info"]?.stringValue)
    }

    /// Reads the error parameters of an authorization response.
    static func fromRedirect(_ parameters: [String: String]) -> OAuthErrorBody? {
        guard let error = parameters["error"], !error.isEmpty else { return nil }
        let description = parameters["error_description"]
        var codes: [String] = []
        if let description, let range = description.range(of: "AADSTS") {
            let digits = description[range.upperBound...].prefix { $0.isNumber }
            if !digits.isEmpty { codes.append(String(digits)) }
        }
        return OAuthErrorBody(error: error, errorDescription: description,
                              subError: parameters["error_subcode"] ?? parameters["suberror"], errorCodes: codes)
    }

    /// Entra's errors for a Conditional Access policy that only a managed device's sign-in passes: a compliant or
    /// registered device (53000, 53001, 53003), token protection (530084).
    static let deviceErrorCodes: Set<String> = ["53000", "53001", "53003", "530084"]

    /// What to do about a device or token-protection policy error: sign in through the device's identity broker.
    static func brokerGuidance(_ codes: [String]) -> String? {
        guard codes.contains(where: deviceErrorCodes.contains) else { return nil }
        return "The tenant's Conditional Access requires a managed device or token protection: sign in through the "
            + "device's identity broker (MSALBrokerOptions; on Linux the Microsoft identity broker, installed with "
            + "Intune or the microsoft-identity-broker package and registered with Entra)."
    }

    /// Whether the error means the user must sign in again interactively.
    var requiresInteraction: Bool {
        ["invalid_grant", "interaction_required", "login_required", "consent_required"].contains(error)
    }

    /// The MSAL error for this OAuth error (RFC 6749 §5.2, with Entra's extensions).
    func msalError(httpStatus: Int?, headers: [String: String]?, correlationId: UUID) -> MSALErrorInfo {
        let description = "The server returned \(error)"
            + (errorDescription.map { ": " + Self.firstLine(of: $0) } ?? ".")
        var result: MSALErrorInfo
        if subError == "protection_policy_required" {
            result = MSALErrorInfo(.serverProtectionPoliciesRequired, description: description)
        } else if errorCodes.contains("50142") {
            result = MSALErrorInfo(.serverInvalidRequestResetPasswordRequired, description: description)
        } else if requiresInteraction {
            result = MSALErrorInfo(.interactionRequired,
                                   internalCode: error == "invalid_grant" ? .internalErrorInvalidGrant : nil,
                                   description: description)
        } else {
            switch error {
            case "invalid_request": result = .internal(.internalErrorInvalidRequest, description)
            case "invalid_client": result = .internal(.internalErrorInvalidClient, description)
            case "invalid_scope": result = .internal(.internalErrorInvalidScope, description)
            case "unauthorized_client": result = .internal(.internalErrorUnauthorizedClient, description)
            case "unsupported_grant_type", "unsupported_response_type":
                result = .internal(.internalErrorInvalidRequest, description)
            case "access_denied":
                if subError == "cancel" {
                    result = MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled, description: description)
                } else {
                    result = .internal(.internalErrorAuthorizationFailed, description)
                }
            default:
                result = MSALErrorInfo(.serverError, description: description)
            }
        }
        if let guidance = Self.brokerGuidance(errorCodes) { result.errorDescription += " " + guidance }
        result.oauthError = error
        result.oauthSubError = subError
        result.stsErrorCodes = errorCodes.isEmpty ? nil : errorCodes
        result.httpStatusCode = httpStatus
        result.httpHeaders = headers
        result.correlationId = correlationId
        return result
    }

    /// Entra's descriptions carry a trace id and timestamp on later lines; the first line is the message.
    private static func firstLine(of text: String) -> String {
        String(text.split(whereSeparator: \.isNewline).first ?? Substring(text))
    }
}

extension TokenResponse {
    /// RFC 6749 §5.1 and §7.1: `token_type` is required, and a token of a type other than the one asked for is never
    /// used as one — `pop` when the request was bound to a key (`token_type=pop`), else `Bearer` — as MSAL.NET ("You
    /// asked for token type Bearer, but received pop") and the common core (a `pop` answer to a request without
    /// `req_cnf` is refused) check it. Shared by user and app tokens.
    func checkTokenType(expectsProofOfPossession: Bool, correlationId: UUID) throws {
        guard let tokenType else {
            throw MSALErrorInfo.invalidResponse("The token response has no token_type.", correlationId: correlationId)
        }
        let expected = expectsProofOfPossession ? "pop" : "Bearer"
        guard tokenType.caseInsensitiveCompare(expected) == .orderedSame else {
            throw MSALErrorInfo.invalidResponse("The token type of the response is not the one asked for: asked for "
                                                + "\(expected), received \(tokenType.prefix(32)).", correlationId: correlationId)
        }
    }
}
