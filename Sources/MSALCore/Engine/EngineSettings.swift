import Foundation
import Logging

/// The application's settings, copied once when the application is created.
struct EngineSettings: Sendable {
    var clientId: String
    var redirectUri: String
    var authority: MSALAuthority
    var knownAuthorities: [AuthorityDescriptor]
    var tokenExpirationBuffer: TimeInterval
    var extendedLifetimeEnabled: Bool
    var clientCapabilities: [String]?
    var multipleCloudsSupported: Bool
    var extraQueryParameters: [String: String]
    /// ``MSALGlobalConfig/brokerAvailability`` as it was when the application was created.
    var brokerAvailability = MSALBrokeredAvailability.auto
    /// Whether the redirect URI is broker-capable for the app's bundle identifier
    /// (``BrokerSchemeCheck/isBrokerCapable(_:bundleId:)``): the Apple brokers answer only such an app.
    var brokerCapableRedirectUri = false
    /// ``MSALGlobalConfig/httpConfig`` as it was when the application was created: flows never read the global.
    var http: HTTPSettings
    /// ``MSALGlobalConfig/telemetryConfig`` as it was when the application was created.
    var telemetry: TelemetryReporter
    /// A confidential client's credential; nil for a public client.
    var credential: MSALClientCredential?
    /// Where proof-of-possession tokens' key is kept.
    var popKeyStore: any MSALPoPKeyStore
    /// The platform's removal of other applications' caches (``MSALPlatformServices/wipePartnerCaches``).
    var wipePartnerCaches: (@Sendable ([String: [String: String]]) -> [String])? = nil
    /// Nested app authentication: the hub's client id and redirect URI (after the `brk-` swap), sent as
    /// `brk_client_id` and `brk_redirect_uri`; nil: not a nested app.
    var nestedAuth: (clientId: String, redirectUri: String)? = nil
    /// The client id refresh tokens are kept and looked up under: the hub's for a nested app.
    var refreshTokenClientId: String { nestedAuth?.clientId ?? clientId }
    /// ADAL's legacy cache read (and, when it says so, written) beside the unified one; nil: none.
    var legacyCache: LegacyTokenCache? = nil
    /// The application's logger with ``MSALGlobalConfig/loggerConfig`` as it was when the application was created.
    var log: MSALLog

    /// The transport settings an application keeps for its life.
    struct HTTPSettings: Sendable, Equatable {
        var retryCount: Int
        var retryInterval: TimeInterval
        var timeout: TimeInterval

        init(_ config: MSALHTTPConfig) {
            retryCount = max(0, config.retryCount)
            retryInterval = max(0, config.retryInterval)
            timeout = config.timeoutIntervalForRequest > 0 ? config.timeoutIntervalForRequest : 300
        }
    }

    /// The default redirect URI of this platform.
    static var platformDefaultRedirectUri: String {
        #if canImport(Darwin)
        let bundleId = Bundle.main.bundleIdentifier ?? "app"
        return "msauth.\(bundleId)://auth"
        #else
        return "http://localhost"
        #endif
    }

    private static func nonBlank(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// `brk_client_id` and `brk_redirect_uri` of a nested app's requests (none for another app).
    var nestedAuthParameters: [(String, String)] {
        guard let nestedAuth else { return [] }
        return [("brk_client_id", nestedAuth.clientId), ("brk_redirect_uri", nestedAuth.redirectUri)]
    }

    init(_ config: MSALPublicClientApplicationConfig) throws {
        let clientId = config.clientId.trimmingCharacters(in: .whitespaces)
        guard !clientId.isEmpty else {
            throw MSALErrorInfo.invalidParameter("The client id must not be empty.")
        }
        guard clientId.unicodeScalars.allSatisfy({ $0.isASCII && !CharacterSet.whitespacesAndNewlines.contains($0) }) else {
            throw MSALErrorInfo.invalidParameter("The client id must be ASCII without spaces.")
        }
        let redirectUri = config.redirectUri ?? Self.platformDefaultRedirectUri
        if !config.bypassRedirectURIValidation {
            try Self.validateRedirectUri(redirectUri)
        }
        self.clientId = clientId
        self.redirectUri = redirectUri
        if let hubId = Self.nonBlank(config.nestedAuthBrokerClientId), let hubRedirect = Self.nonBlank(config.nestedAuthBrokerRedirectUri) {
            // MSAL for iOS/macOS's `isNestedAuthProtocol` (both set) and `reverseNestedAuthParametersIfNeeded`
            // (`IdentityCore/src/parameters/MSIDRequestParameters.m:321-344`): a `brk-` nested redirect URI means the
            // two pairs were given the other way round.
            if hubRedirect.hasPrefix("brk-") {
                self.clientId = hubId
                self.redirectUri = hubRedirect
                nestedAuth = (clientId, redirectUri)
            } else {
                nestedAuth = (hubId, hubRedirect)
            }
        }
        self.authority = config.authority
        self.knownAuthorities = config.knownAuthorities.map(\.descriptor)
        if config.authority.descriptor.rules.mustBeKnown,
           !knownAuthorities.contains(where: { $0.kind == config.authority.descriptor.kind && $0.host == config.authority.descriptor.host }) {
            throw MSALErrorInfo.internal(.internalErrorFailedAuthorityValidation,
                                         "A B2C authority must be listed in knownAuthorities: \(config.authority.url.absoluteString)")
        }
        self.tokenExpirationBuffer = max(0, config.tokenExpirationBuffer)
        self.extendedLifetimeEnabled = config.extendedLifetimeEnabled
        self.clientCapabilities = config.clientApplicationCapabilities
        self.popKeyStore = config.popKeyStore ?? MSALInMemoryPoPKeyStore()
        self.multipleCloudsSupported = config.multipleCloudsSupported
        self.extraQueryParameters = config.extraQueryParameters
        self.http = HTTPSettings(MSALGlobalConfig.httpConfig)
        self.brokerAvailability = MSALGlobalConfig.brokerAvailability
        // As MSAL for iOS/macOS: bypassing the redirect URI's validation leaves it not broker-capable
        // (`IdentityCore/src/util/mac/MSIDRedirectUriVerifier.m:45-49`, `util/ios/MSIDRedirectUriVerifier.m:62`).
        self.brokerCapableRedirectUri = !config.bypassRedirectURIValidation && BrokerSchemeCheck.isBrokerCapable(
            redirectUri, bundleId: config.brokerOptions.bundleIdentifier ?? Bundle.main.bundleIdentifier)
        self.telemetry = TelemetryReporter(MSALGlobalConfig.telemetryConfig)
        self.log = MSALLog(logger: config.logger ?? Logger(label: MSALLog.label),
                           settings: MSALLog.Settings(config.loggerConfig ?? MSALGlobalConfig.loggerConfig))
    }

    /// A redirect URI must be absolute, without a fragment; http only for loopback hosts (RFC 8252 §7.3).
    static func validateRedirectUri(_ uri: String) throws {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(), !scheme.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI, "The redirect URI \"\(uri)\" is not an absolute URI.")
        }
        if components.fragment != nil {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI, "The redirect URI must not contain a fragment.")
        }
        if scheme == "http" {
            guard let host = components.host, AuthorityDescriptor.isLoopbackHost(host) else {
                throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI,
                                             "An http redirect URI must name a loopback host (localhost, 127.0.0.1 or [::1]).")
            }
        }
    }
}
