import Foundation

/// A managed-identity endpoint's answer, read: a token with its expiry, or a typed error. Pure.
struct ManagedIdentityResponse: Sendable {
    var accessToken: String
    var expiresOn: Date
    var refreshOn: Date?

    static let maximumBodyBytes = 1 << 20

    /// Reads a 2xx answer: `access_token`, and `expires_on` (epoch seconds, as a string or a number; App Service)
    /// or `expires_in` (IMDS, Arc), bounded; `refresh_in` when given. Anything else is a typed error.
    init(_ response: MSALHTTPResponse, source: MSALManagedIdentitySource, now: Date, correlationId: UUID) throws {
        guard response.body.count <= Self.maximumBodyBytes,
              let object = JSONValue.parseObject(response.body) else {
            throw Self.error("answered HTTP \(response.statusCode) with a body that is not JSON", source: source,
                             status: response.statusCode, correlationId: correlationId)
        }
        guard case .string(let token)? = object["access_token"], !token.isEmpty else {
            throw Self.error("answered without an access_token", source: source, status: response.statusCode,
                             correlationId: correlationId)
        }
        if case .string(let type)? = object["token_type"], type.caseInsensitiveCompare("Bearer") != .orderedSame {
            throw Self.error("answered a token of type \(type.prefix(32)), not Bearer", source: source,
                             status: response.statusCode, correlationId: correlationId)
        }
        let lifetime: TimeInterval
        if let expiresIn = Self.number(object["expires_in"]) {
            lifetime = expiresIn
        } else if let expiresOn = Self.number(object["expires_on"]) {
            lifetime = expiresOn - now.timeIntervalSince1970
        } else {
            throw Self.error("answered without expires_in or expires_on", source: source, status: response.statusCode,
                             correlationId: correlationId)
        }
        guard lifetime > 0 else {
            throw Self.error("answered a token that has already expired", source: source, status: response.statusCode,
                             correlationId: correlationId)
        }
        accessToken = token
        expiresOn = now.addingTimeInterval(min(lifetime, ExternalNumber.maximumLifetime))
        // Managed identity tokens live long (24 h): refresh at half their life, as MSAL does.
        refreshOn = Self.number(object["refresh_in"]).map { now.addingTimeInterval($0) }
            ?? (lifetime >= 2 * 3600 ? now.addingTimeInterval(lifetime / 2) : nil)
    }

    /// Azure Arc: an agent too old for user-assigned identities ignores the selector and answers with the
    /// system-assigned identity. A token for a user-assigned identity is taken only when the answer names that
    /// identity (`client_id`, `object_id` or `msi_res_id`, compared without case).
    static func checkArcEcho(_ response: MSALHTTPResponse, identity: MSALManagedIdentityId, correlationId: UUID) throws {
        guard let (kind, requested) = identity.userAssigned else { return }
        let object = JSONValue.parseObject(response.body)
        let names: [String]
        switch kind {
        case .clientId: names = ["client_id"]
        case .objectId: names = ["object_id"]
        case .resourceId: names = ["msi_res_id", "mi_res_id"]
        }
        let echoed = names.lazy.compactMap { object?[$0]?.stringValue }.first
        guard let echoed, echoed.lowercased() == requested.lowercased() else {
            throw MSALErrorInfo.invalidResponse(
                "Azure Arc did not confirm the requested user-assigned managed identity; the agent may not support "
                    + "user-assigned identities and answered for the system-assigned one. The token was not used.",
                correlationId: correlationId)
        }
    }

    /// The typed error for a non-2xx answer: the endpoint's own `error`/`error_description` (IMDS) or
    /// `statusCode`/`message` (App Service) when it sent JSON, else its HTTP status.
    static func failure(_ response: MSALHTTPResponse, source: MSALManagedIdentitySource, correlationId: UUID) -> MSALErrorInfo {
        let object = response.body.count <= maximumBodyBytes ? JSONValue.parseObject(response.body) : nil
        var detail = ""
        var oauthError: String?
        if case .string(let error)? = object?["error"] {
            oauthError = String(error.prefix(128))
            detail = oauthError ?? ""
            if case .string(let description)? = object?["error_description"] { detail += ": " + description.prefix(512) }
        } else if case .string(let message)? = object?["message"] {
            detail = String(message.prefix(512))
        }
        var info = MSALErrorInfo.server(
            "The \(source.rawValue) managed identity endpoint answered HTTP \(response.statusCode)"
                + (detail.isEmpty ? (object == nil && !response.body.isEmpty ? " with a body that is not JSON." : ".")
                                  : " (\(TerminalSafe.oneLine(detail)))."),
            status: response.statusCode, headers: response.headers,
            internalCode: response.statusCode >= 500 ? nil : .internalErrorUnexpectedHttpResponse,
            correlationId: correlationId)
        info.oauthError = oauthError
        return info
    }

    private static func error(_ what: String, source: MSALManagedIdentitySource, status: Int,
                              correlationId: UUID) -> MSALErrorInfo {
        MSALErrorInfo.invalidResponse("The \(source.rawValue) managed identity endpoint \(what) (HTTP \(status)).",
                                      correlationId: correlationId)
    }

    /// A bounded number from a JSON number or a decimal string.
    private static func number(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .number(let n)? where n.isFinite && abs(n) < 1e12: return n
        case .string(let s)?, .numberText(let s)?: return Double(s.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite && abs($0) < 1e12 ? $0 : nil }
        default: return nil
        }
    }
}

/// Strips control characters from text that came from the network before it goes into an error message.
enum TerminalSafe {
    static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
    }
}
