import Foundation

/// Hands one event per finished token request to ``MSALTelemetryConfig/telemetryCallback``, as MSAL does: MSAL
/// never uploads telemetry itself. The settings are those of ``MSALGlobalConfig/telemetryConfig`` when the
/// application was created.
///
/// Events never carry tokens, codes or claims; the account's home id only with ``MSALTelemetryConfig/piiEnabled``.
struct TelemetryReporter: Sendable {
    /// Which public call an event reports.
    enum API: String, Sendable {
        case interactive = "acquire_token"
        case silent = "acquire_token_silent"
        case deviceCode = "acquire_token_device_code"
    }

    /// The event keys.
    enum Key {
        static let eventName = "Microsoft.MSAL.event_name"
        static let correlationId = "Microsoft.MSAL.correlation_id"
        static let clientId = "Microsoft.MSAL.client_id"
        static let authorityType = "Microsoft.MSAL.authority_type"
        static let succeeded = "Microsoft.MSAL.is_successfull"
        static let responseTime = "Microsoft.MSAL.response_time"
        static let errorDomain = "Microsoft.MSAL.error_domain"
        static let errorCode = "Microsoft.MSAL.api_error_code"
        static let oauthError = "Microsoft.MSAL.oauth_error_code"
        static let userId = "Microsoft.MSAL.user_id"
    }

    var callback: (@Sendable ([String: String]) -> Void)?
    var piiEnabled: Bool
    var failuresOnly: Bool

    init(_ config: MSALTelemetryConfig) {
        callback = config.telemetryCallback
        piiEnabled = config.piiEnabled
        failuresOnly = config.notifyOnFailureOnly
    }

    /// Runs `body` and reports how it ended.
    func report(_ api: API, clientId: String, authorityType: String, correlationId: UUID, clock: any MSALClock,
                _ body: () async throws -> MSALResult) async throws -> MSALResult {
        guard let callback else { return try await body() }
        let started = clock.now()
        var event = [Key.eventName: api.rawValue, Key.correlationId: correlationId.uuidString,
                     Key.clientId: clientId, Key.authorityType: authorityType]
        func finish(_ succeeded: Bool) {
            let elapsed = max(0, clock.now().timeIntervalSince(started) * 1000)
            event[Key.responseTime] = String(format: "%.0f", min(elapsed, 1e12))
            event[Key.succeeded] = succeeded ? "yes" : "no"
            if !succeeded || !failuresOnly { callback(event) }
        }
        do {
            let result = try await body()
            if piiEnabled, let home = result.account.identifier { event[Key.userId] = home }
            finish(true)
            return result
        } catch {
            let ns = error as NSError
            event[Key.errorDomain] = ns.domain
            event[Key.errorCode] = String(ns.code)
            if let info = error as? MSALErrorInfo, let oauth = info.oauthError { event[Key.oauthError] = oauth }
            finish(false)
            throw error
        }
    }
}
