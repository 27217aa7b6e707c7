public import Foundation
import Dispatch

/// How MSAL asks the user during interactive sign-in.
public enum MSALPromptType: UInt, Sendable {
    /// Let the user pick an account (`prompt=select_account`).
    case selectAccount = 0
    /// Make the user enter credentials (`prompt=login`).
    case login = 1
    /// Ask the user to consent again (`prompt=consent`).
    case consent = 2
    /// Offer to create an account (`prompt=create`).
    case create = 3
    /// Ask only if necessary (no `prompt` parameter). The default.
    case promptIfNecessary = 4

    /// The default, ``promptIfNecessary``.
    public static let `default` = MSALPromptType.promptIfNecessary

    /// The `prompt` parameter value, or nil for ``promptIfNecessary``.
    var parameterValue: String? {
        switch self {
        case .selectAccount: return "select_account"
        case .login: return "login"
        case .consent: return "consent"
        case .create: return "create"
        case .promptIfNecessary: return nil
        }
    }
}

/// Parameters common to every MSAL call.
public class MSALParameters: @unchecked Sendable {
    private let queueBox = LockedBox<DispatchQueue?>(nil)

    /// The queue completion blocks are called on. When nil, every call completes on the main queue on Apple
    /// platforms (a completion block written in a view controller is isolated to the main actor), and on a background
    /// queue elsewhere (Linux programs often run no main loop).
    public var completionBlockQueue: DispatchQueue? {
        get { queueBox.get() }
        set { queueBox.set(newValue) }
    }

    /// Creates parameters with default values.
    public init() {}
}

/// The settings of a token request, read together under one lock when a call starts.
///
/// What a remembered cache hit reads (the hit, the fields that rule it out, the correlation id) comes first, so that
/// it shares the first cache lines of the parameters with their lock.
struct TokenRequestSettings: Sendable {
    /// The cache hit that last answered these settings (silent requests only); cleared by every change.
    var rememberedHit: RememberedSilentHit?
    /// Silent requests only (``MSALSilentTokenParameters/forceRefresh``).
    var forceRefresh = false
    var allowLocalRefreshToken = true
    var correlationId: UUID?
    var claimsRequest: MSALClaimsRequest?
    /// ``MSALTokenParameters/authenticationScheme`` when it is proof of possession; nil for bearer (a plain field:
    /// the silent hot path checks it on every call).
    var popScheme: MSALAuthenticationSchemePop?
    var account: MSALAccount?
    var scopes: [String]
    var authority: MSALAuthority?
    var extraQueryParameters: [String: String]?
    var loginHint: String?

    init(scopes: [String]) {
        self.scopes = scopes
    }
}

/// Parameters common to interactive and silent token requests.
public class MSALTokenParameters: MSALParameters, @unchecked Sendable {
    /// The settings under their lock (``SettingsLock``).
    private let settingsLock: SettingsLock<TokenRequestSettings>

    /// Runs `body` on the settings under their lock.
    final func withSettings<T: Sendable>(_ body: (inout TokenRequestSettings) throws -> T) rethrows -> T {
        try settingsLock.withLock(body)
    }

    /// Changes the settings under their lock; the remembered cache hit no longer applies.
    final func changeSettings(_ body: (inout TokenRequestSettings) -> Void) {
        settingsLock.withLock { settings in
            body(&settings)
            settings.rememberedHit = nil
        }
    }

    /// The scopes to request, such as `["User.Read"]` or `["api://<app id>/.default"]`. MSAL adds `openid`,
    /// `profile` and `offline_access` itself.
    public var scopes: [String] {
        get { withSettings { $0.scopes } }
        set { changeSettings { $0.scopes = newValue } }
    }
    /// The account to get a token for.
    public var account: MSALAccount? {
        get { withSettings { $0.account } }
        set { changeSettings { $0.account = newValue } }
    }
    /// The authority for this request; it must be of the same kind as the application's. Nil uses the
    /// application's authority (for silent requests, the account's home tenant when that authority is
    /// `common`, `organizations` or `consumers`).
    public var authority: MSALAuthority? {
        get { withSettings { $0.authority } }
        set { changeSettings { $0.authority = newValue } }
    }
    /// The kind of token to get: ``MSALAuthenticationSchemeBearer`` (the default) or ``MSALAuthenticationSchemePop``
    /// (a token bound to the application's key, returned inside a request signed for one HTTP call).
    public var authenticationScheme: any MSALAuthenticationSchemeProtocol {
        get { withSettings { $0.popScheme } ?? MSALAuthenticationSchemeBearer() }
        set { changeSettings { $0.popScheme = newValue as? MSALAuthenticationSchemePop } }
    }
    /// ``authenticationScheme`` when it is proof of possession.
    var popScheme: MSALAuthenticationSchemePop? { withSettings { $0.popScheme } }
    /// Claims to request, such as a claims challenge from a resource. A claims request skips the token cache.
    public var claimsRequest: MSALClaimsRequest? {
        get { withSettings { $0.claimsRequest } }
        set { changeSettings { $0.claimsRequest = newValue } }
    }
    /// Extra query parameters sent with this request.
    public var extraQueryParameters: [String: String]? {
        get { withSettings { $0.extraQueryParameters } }
        set { changeSettings { $0.extraQueryParameters = newValue } }
    }
    /// The correlation id of this request. A new one is generated when nil.
    public var correlationId: UUID? {
        get { withSettings { $0.correlationId } }
        set { changeSettings { $0.correlationId = newValue } }
    }
    /// A login hint (accepted for source compatibility with code that sets it on silent parameters; used by
    /// interactive requests).
    public var loginHint: String? {
        get { withSettings { $0.loginHint } }
        set { changeSettings { $0.loginHint = newValue } }
    }

    /// macOS: how the request may use the broker's XPC service beside Microsoft's Enterprise SSO extension. Default
    /// ``MSALXpcMode/disabled``; ``MSALXpcMode/primary`` skips the extension.
    @MSALLocked public var msalXpcMode: MSALXpcMode = .disabled

    /// All settings at once, as the call starts.
    var settings: TokenRequestSettings { withSettings { $0 } }

    /// Creates parameters for `scopes`.
    public init(scopes: [String]) {
        settingsLock = SettingsLock(TokenRequestSettings(scopes: scopes))
        super.init()
    }
}

/// Parameters of an interactive token request.
public final class MSALInteractiveTokenParameters: MSALTokenParameters, @unchecked Sendable {
    /// How the user is prompted. Default ``MSALPromptType/promptIfNecessary``.
    @MSALLocked public var promptType: MSALPromptType = .promptIfNecessary
    /// A domain hint (`domain_hint`), such as `contoso.com`.
    @MSALLocked public var domainHint: String?
    /// Further scopes the user is asked to consent to now, so that later silent requests for them succeed.
    @MSALLocked public var extraScopesToConsent: [String]?
    /// The sign-in method to offer first: ``MSALPreferredAuthMethod/QRPIN`` asks for the QR code and PIN sign-in of
    /// shared devices (`pc=18`, to the identity platform, the broker app or the SSO extension). Default
    /// ``MSALPreferredAuthMethod/none``.
    @MSALLocked public var preferredAuthMethod: MSALPreferredAuthMethod = .none

    /// The web view settings.
    public let webviewParameters: MSALWebviewParameters

    /// Creates interactive parameters for `scopes`, shown with `webviewParameters`.
    public init(scopes: [String], webviewParameters: MSALWebviewParameters) {
        self.webviewParameters = webviewParameters
        super.init(scopes: scopes)
    }
}

/// Parameters of a silent token request.
public final class MSALSilentTokenParameters: MSALTokenParameters, @unchecked Sendable {
    /// Skip the cached access token and refresh. Default false.
    public var forceRefresh: Bool {
        get { withSettings { $0.forceRefresh } }
        set { changeSettings { $0.forceRefresh = newValue } }
    }
    /// When Microsoft's Enterprise SSO extension fails a silent request (other than by the user cancelling), whether
    /// the account's own cached refresh token may be redeemed instead; the extension's error is returned when that
    /// fails too. Default true, as in MSAL for iOS/macOS.
    public var allowUsingLocalCachedRtWhenSsoExtFailed: Bool {
        get { withSettings { $0.allowLocalRefreshToken } }
        set { changeSettings { $0.allowLocalRefreshToken = newValue } }
    }

    /// Creates silent parameters for `scopes` and `account`.
    public init(scopes: [String], account: MSALAccount) {
        super.init(scopes: scopes)
        self.account = account
    }

    /// The result of a remembered cache hit for this request (``ClientEngine/rememberedSilentHitNow(_:)``), read
    /// under the settings' lock; nil when the request cannot be answered from the memo (claims, a forced refresh,
    /// proof of possession, no account) or no remembered hit answers it.
    func rememberedHit(_ engine: ClientEngine) -> MSALResult? {
        withSettings { s in
            guard s.claimsRequest == nil, !s.forceRefresh, s.popScheme == nil else { return nil }
            return engine.rememberedSilentHitNow(&s)
        }
    }

    /// The request of one silent call, read together when it starts.
    func silentRequest() -> SilentRequest {
        let settings = settings
        let claims = settings.claimsRequest
        var request = SilentRequest(scopes: settings.scopes, account: settings.account, authority: settings.authority,
                             claims: claims?.jsonString(), hasClaimsRequest: claims != nil,
                             forceRefresh: settings.forceRefresh,
                             correlationId: settings.correlationId ?? CorrelationID.next(),
                             extraQueryParameters: settings.extraQueryParameters ?? [:],
                             allowLocalRefreshToken: settings.allowLocalRefreshToken)
        request.xpcMode = msalXpcMode
        request.popScheme = settings.popScheme
        return request
    }
}

/// Parameters of ``MSALPublicClientApplication/signout(with:signoutParameters:completionBlock:)``.
public final class MSALSignoutParameters: MSALParameters, @unchecked Sendable {
    /// Also end the session in the browser through the OpenID end-session endpoint. Default false.
    @MSALLocked public var signoutFromBrowser: Bool = false
    /// Remove the account for every app sharing the cache, not only this one: the refresh tokens of every client
    /// id are removed too, so the account is signed out of all of them. Destructive; default false.
    @MSALLocked public var wipeAccount: Bool = false
    /// Remove every account from the cache. Default false.
    @MSALLocked public var wipeCacheForAllAccounts: Bool = false
    /// Extra query parameters for the end-session request.
    @MSALLocked public var extraQueryParameters: [String: String]?

    /// The web view settings used for browser sign-out.
    public let webviewParameters: MSALWebviewParameters

    /// Creates sign-out parameters.
    public init(webviewParameters: MSALWebviewParameters) {
        self.webviewParameters = webviewParameters
        super.init()
    }

    /// Creates sign-out parameters with default web view settings.
    public override convenience init() {
        self.init(webviewParameters: MSALWebviewParameters())
    }
}

/// Filters for account lookups.
public final class MSALAccountEnumerationParameters: MSALParameters, @unchecked Sendable {
    /// The home account id to match.
    public let identifier: String?
    /// The user name to match (case-insensitive).
    public let username: String?
    /// A tenant profile identifier (object id in some tenant) to match.
    public let tenantProfileIdentifier: String?
    /// Return only accounts that can get tokens silently (a refresh token exists for this app). Default true.
    @MSALLocked public var returnOnlySignedInAccounts: Bool = true

    /// Matches the account with home account id `identifier`.
    public init(identifier: String?) {
        self.identifier = identifier
        self.username = nil
        self.tenantProfileIdentifier = nil
        super.init()
    }

    /// Matches by home account id and user name.
    public init(identifier: String?, username: String) {
        self.identifier = identifier
        self.username = username
        self.tenantProfileIdentifier = nil
        super.init()
    }

    /// Matches the account that has a tenant profile with this identifier.
    public init(tenantProfileIdentifier: String) {
        self.identifier = nil
        self.username = nil
        self.tenantProfileIdentifier = tenantProfileIdentifier
        super.init()
    }
}

