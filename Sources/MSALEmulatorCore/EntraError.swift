import Foundation

/// An OAuth error shaped as Entra's: `error`, `error_description` starting with an AADSTS code, `error_codes`, ...
struct EntraError: Error, Sendable {
    var error: String
    var code: Int
    var message: String
    var status: Int = 400
    var suberror: String?
    /// `AADSTS` for Entra, `AADB2C` for B2C.
    var prefix: String = "AADSTS"
    /// Native authentication: the token to go on with (`credential_required`, `attributes_required`, ...).
    var continuationToken: String?
    /// Native authentication: the attributes sign-up still needs (`attributes_required`).
    var requiredAttributes: [NativeAuthSettings.Attribute]?
    /// Native authentication: the attributes that failed validation (`attribute_validation_failed`).
    var invalidAttributes: [String]?
    /// Native authentication: the service wants a browser sign-in; answered as `200 {"challenge_type": "redirect"}`
    /// with this `redirect_reason` instead of an error.
    var redirectReason: String?

    var codeText: String { "\(prefix)\(code)" }

    func description(traceId: String, correlationId: String, timestamp: String) -> String {
        "\(codeText): \(message) Trace ID: \(traceId) Correlation ID: \(correlationId) Timestamp: \(timestamp)"
    }

    /// The JSON answer of the token and device-code endpoints.
    func response(_ request: EmulatorRequest, clock: EmulatorClock) -> EmulatorResponse {
        if let redirectReason {
            return .json(["challenge_type": "redirect", "redirect_reason": redirectReason],
                         headers: [("client-request-id", request.correlationId)])
        }
        let traceId = UUID().uuidString.lowercased()
        let correlationId = request.correlationId
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss'Z'"
        let timestamp = formatter.string(from: clock.stampedNow)
        var body: [String: Any] = [
            "error": error,
            "error_description": description(traceId: traceId, correlationId: correlationId, timestamp: timestamp),
            "error_codes": [code],
            "timestamp": timestamp,
            "trace_id": traceId,
            "correlation_id": correlationId,
            "error_uri": "\(request.baseURL)/error?code=\(code)",
        ]
        if let suberror { body["suberror"] = suberror }
        if let continuationToken { body["continuation_token"] = continuationToken }
        if let requiredAttributes {
            body["required_attributes"] = requiredAttributes.map { attribute -> [String: Any] in
                var entry: [String: Any] = ["name": attribute.name, "type": attribute.type, "required": attribute.required]
                if let regex = attribute.regex { entry["options"] = ["regex": regex] }
                return entry
            }
        }
        if let invalidAttributes { body["invalid_attributes"] = invalidAttributes.map { ["name": $0] } }
        var headers: [(String, String)] = [("client-request-id", correlationId), ("x-ms-request-id", traceId)]
        // RFC 6749 §5.2: the Basic challenge answers a client that authenticated with the Authorization header;
        // clients that post their credentials in the form get the 401 and the JSON alone.
        if status == 401, request.headers["authorization"]?.lowercased().hasPrefix("basic ") == true {
            headers.append(("WWW-Authenticate", "Basic realm=\"emulator\""))
        }
        return .json(body, status: status, headers: headers)
    }

    /// The parameters for an error redirect to the client.
    var redirectParameters: [(String, String)] {
        [("error", error), ("error_description", "\(codeText): \(message)")]
    }

    /// Native authentication's `redirect` answer (see ``redirectReason``).
    static func redirect(_ reason: String) -> EntraError {
        EntraError(error: "redirect", code: 0, message: reason, status: 200, redirectReason: reason)
    }

    static func missing(_ parameter: String) -> EntraError {
        EntraError(error: "invalid_request", code: 900144, message: "The request body must contain the following parameter: '\(parameter)'.")
    }

    static func unknownClient(_ clientId: String) -> EntraError {
        EntraError(
            error: "unauthorized_client", code: 700016,
            message: "Application with identifier '\(clientId)' was not found in the directory. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant."
        )
    }

    static func unknownTenant(_ tenant: String) -> EntraError {
        EntraError(error: "invalid_tenant", code: 90002, message: "Tenant '\(tenant)' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.")
    }

    /// AADSTS65002: a first-party client asked for an individual scope of an API it is only preauthorized for.
    static func notPreauthorized(clientId: String, resourceAppId: String) -> EntraError {
        EntraError(error: "invalid_grant", code: 65002, message: "Consent between first party application '\(clientId)' and first party resource '\(resourceAppId)' must be configured via preauthorization - applications owned and operated by Microsoft must get approval from the API owner before requesting tokens for that API.")
    }

    static func invalidScope(_ detail: String) -> EntraError {
        EntraError(error: "invalid_scope", code: 70011, message: "The provided request must include a 'scope' input parameter. \(detail)")
    }

    static func consentRequired(_ scopes: [String], clientId: String) -> EntraError {
        EntraError(
            error: "invalid_grant", code: 65001,
            message: "The user or administrator has not consented to use the application with ID '\(clientId)'. Send an interactive authorization request for this user and resource. Missing scopes: \(scopes.joined(separator: " ")).",
            suberror: "consent_required"
        )
    }
}
