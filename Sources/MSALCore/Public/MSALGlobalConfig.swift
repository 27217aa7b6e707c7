public import Foundation

/// How much MSAL logs.
public enum MSALLogLevel: Int, Sendable, Comparable {
    case nothing = 0
    case error = 1
    case warning = 2
    case info = 3
    case verbose = 4

    /// The most detailed level.
    public static let last = MSALLogLevel.verbose

    public static func < (lhs: MSALLogLevel, rhs: MSALLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Which personal data MSAL masks in log messages. Tokens are never logged at any level.
public enum MSALLogMaskingLevel: Int, Sendable {
    /// Mask all personal data (user names, account ids, ...). The default.
    case settingsMaskAllPII = 0
    /// Mask only end-user identifiable information.
    case settingsMaskEUIIOnly = 1
    /// Mask only secrets (tokens are never written in any case).
    case settingsMaskSecretsOnly = 2
}

/// The log callback: the level, the message, and whether the message contains personal data.
public typealias MSALLogCallback = @Sendable (MSALLogLevel, String?, Bool) -> Void

/// Logging settings, shared by every ``MSALPublicClientApplication`` in the process.
///
/// MSAL also logs through swift-log under the label `com.microsoft.identity.msal`, so server applications that
/// bootstrap `LoggingSystem` receive MSAL's messages without a callback.
public final class MSALLoggerConfig: @unchecked Sendable {
    @MSALLocked private var level: MSALLogLevel = .info
    @MSALLocked private var masking: MSALLogMaskingLevel = .settingsMaskAllPII
    @MSALLocked private var logCallback: MSALLogCallback?

    package init() {}

    /// The most detailed level delivered. Default ``MSALLogLevel/info``.
    public var logLevel: MSALLogLevel {
        get { level }
        set { level = newValue }
    }

    /// How personal data is masked. Default ``MSALLogMaskingLevel/settingsMaskAllPII``.
    public var logMaskingLevel: MSALLogMaskingLevel {
        get { masking }
        set { masking = newValue }
    }

    /// Sets the callback that receives MSAL's log messages. Replacing it later replaces the previous one.
    public func setLogCallback(_ callback: @escaping MSALLogCallback) {
        logCallback = callback
    }

    /// The callback set with ``setLogCallback(_:)``.
    public func callback() -> MSALLogCallback? { logCallback }

    /// Removes the callback.
    func clearLogCallback() { logCallback = nil }
}

/// HTTP settings, shared by every ``MSALPublicClientApplication`` in the process.
public final class MSALHTTPConfig: @unchecked Sendable {
    @MSALLocked private var retries: Int = 1
    @MSALLocked private var interval: TimeInterval = 0.5
    @MSALLocked private var timeout: TimeInterval = 300

    init() {}

    /// How many times a request is retried after a 5xx response or a timeout. Default 1; kept within 0...10.
    public var retryCount: Int {
        get { retries }
        set { retries = min(max(0, newValue), 10) }
    }

    /// Seconds to wait before a retry. Default 0.5; kept within 0...3600 (NaN keeps the current value).
    public var retryInterval: TimeInterval {
        get { interval }
        set { if !newValue.isNaN { interval = min(max(0, newValue), 3600) } }
    }

    /// Seconds to wait for a response. A token request's retries (``retryCount``) are sent within it: a request that
    /// timed out is not sent again, so this is the longest a token request waits. Default 300; kept within
    /// 1...86400 (NaN keeps the current value).
    public var timeoutIntervalForRequest: TimeInterval {
        get { timeout }
        set { if !newValue.isNaN { timeout = min(max(1, newValue), 86_400) } }
    }
}

/// Telemetry settings. MSAL never uploads telemetry; events go only to the callback.
public final class MSALTelemetryConfig: @unchecked Sendable {
    @MSALLocked private var pii = false
    @MSALLocked private var failureOnly = false
    @MSALLocked private var handler: (@Sendable ([String: String]) -> Void)?

    init() {}

    /// Whether events may carry personal data. Default false.
    public var piiEnabled: Bool {
        get { pii }
        set { pii = newValue }
    }
    /// Whether only failed requests produce events. Default false.
    public var notifyOnFailureOnly: Bool {
        get { failureOnly }
        set { failureOnly = newValue }
    }
    /// Receives one dictionary per finished token request (`acquireToken`, `acquireTokenSilent`, device code) of
    /// applications created after it is set: `Microsoft.MSAL.event_name`, `correlation_id`, `client_id`,
    /// `authority_type`, `is_successfull` (`yes`/`no`), `response_time` (ms), and on failure `error_domain`,
    /// `api_error_code` and `oauth_error_code`. Never tokens or claims; the account id only with ``piiEnabled``.
    public var telemetryCallback: MSALTelemetryCallback? {
        get { handler }
        set { handler = newValue }
    }
}

/// Receives MSAL's telemetry events (see ``MSALTelemetryConfig/telemetryCallback``).
public typealias MSALTelemetryCallback = @Sendable ([String: String]) -> Void

/// Whether an identity broker may be used.
public enum MSALBrokeredAvailability: Int, Sendable {
    /// A broker is used where the application's ``MSALPublicClientApplicationConfig/brokerOptions`` turn it on
    /// (on Linux, the Microsoft identity broker when `enabledOnLinux`). The default.
    case auto = 0
    /// No broker is ever used, whatever the applications' options.
    case none = 1
}

/// Process-wide MSAL settings.
public enum MSALGlobalConfig {
    private static let logger = MSALLoggerConfig()
    private static let http = MSALHTTPConfig()
    private static let telemetry = MSALTelemetryConfig()
    private static let broker = LockedBox(MSALBrokeredAvailability.auto)
    private static let boundAppRefreshTokens = LockedBox(false)

    /// Logging settings.
    public static var loggerConfig: MSALLoggerConfig { logger }
    /// HTTP retry and timeout settings.
    public static var httpConfig: MSALHTTPConfig { http }
    /// Telemetry settings.
    public static var telemetryConfig: MSALTelemetryConfig { telemetry }
    /// Whether an identity broker may be used: ``MSALBrokeredAvailability/none`` turns it off for every application
    /// created afterwards.
    public static var brokerAvailability: MSALBrokeredAvailability {
        get { broker.get() }
        set { broker.set(newValue) }
    }
    /// Whether requests to Microsoft Authenticator ask for refresh tokens bound to the device (`bound_rt_redeem=1`).
    /// Default false, as in MSAL for iOS/macOS. Accepted so that code written for MSAL compiles, and not acted on:
    /// such a token is redeemed only with a JWT signed by the device registration's Secure Enclave key, its answer
    /// encrypted to the device's transport key, which this library does not hold; asking for one would leave the
    /// app a refresh token it cannot use. Authenticator's ordinary refresh token is requested and stored instead.
    public static var shouldRequestBoundAppRefreshTokens: Bool {
        get { boundAppRefreshTokens.get() }
        set { boundAppRefreshTokens.set(newValue) }
    }
}
