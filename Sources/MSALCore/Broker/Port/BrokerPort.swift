import Foundation

/// The broker port: what every broker of the device implements — Microsoft's Enterprise SSO extension, the Linux
/// identity broker, Microsoft Authenticator app to app — so that the engine asks them all the same way, in one
/// order (``ClientEngine/brokers``), and takes every answer through one accept step
/// (``ClientEngine/acceptBrokered(_:correlationId:cache:)``).
///
/// Every operation answers nil when this broker does not take it after all (not installed, not answering, the
/// request not for it): the engine then asks the next broker, and after the last runs its own flow. A broker that
/// answered with a refusal throws the refusal, mapped by ``BrokerErrorMapping``.
protocol BrokerPort: Sendable {
    /// The broker's name in log lines.
    var name: String { get }

    /// Whether this broker may take `request` at all (its eligibility rules: authority kind, redirect URI, client
    /// type, the request's settings). Cheap and without user interface.
    func isEligible(_ request: BrokerEligibility, engine: ClientEngine) async -> Bool

    /// An interactive sign-in in the broker's own user interface.
    func interactive(_ request: InteractiveRequest, authority: MSALAuthority, engine: ClientEngine) async throws -> BrokeredToken?

    /// A silent token for the plan's account.
    func silent(_ plan: UserTokenPlan, engine: ClientEngine) async throws -> BrokeredToken?

    /// The accounts the broker holds for this application, and what it says of the device.
    func accounts(signedInOnly: Bool, engine: ClientEngine, correlationId: UUID) async throws -> BrokerAccountList?

    /// Signs `account` out of the broker.
    func signOut(_ account: MSALAccount, _ options: BrokerSignOutOptions, engine: ClientEngine, correlationId: UUID) async throws

    /// What the broker says of the device.
    func deviceInformation(engine: ClientEngine, correlationId: UUID) async throws -> SSOExtensionDeviceInfo?

    /// Whether the application's own flow (the account's refresh token) may run after this broker failed a silent
    /// request with `error`.
    func allowsOwnFlow(after error: MSALErrorInfo, request: SilentRequest, eligibility: BrokerEligibility) -> Bool
}

extension BrokerPort {
    func interactive(_ request: InteractiveRequest, authority: MSALAuthority, engine: ClientEngine) async throws -> BrokeredToken? { nil }
    func silent(_ plan: UserTokenPlan, engine: ClientEngine) async throws -> BrokeredToken? { nil }
    func accounts(signedInOnly: Bool, engine: ClientEngine, correlationId: UUID) async throws -> BrokerAccountList? { nil }
    func signOut(_ account: MSALAccount, _ options: BrokerSignOutOptions, engine: ClientEngine, correlationId: UUID) async throws {}
    func deviceInformation(engine: ClientEngine, correlationId: UUID) async throws -> SSOExtensionDeviceInfo? { nil }
    func allowsOwnFlow(after error: MSALErrorInfo, request: SilentRequest, eligibility: BrokerEligibility) -> Bool { false }
}

/// What a broker is asked to do, for ``BrokerPort/isEligible(_:engine:)``.
enum BrokerOperation: Sendable, Equatable {
    case interactive, silent, accounts, signOut, deviceInformation
}

/// A request as the brokers' eligibility rules see it.
struct BrokerEligibility: Sendable {
    var operation: BrokerOperation
    var authority: MSALAuthority
    /// ``MSALTokenParameters/msalXpcMode`` of a token request (``MSALXpcMode/disabled`` otherwise).
    var xpcMode: MSALXpcMode = .disabled
    /// The account a silent request is for.
    var account: MSALAccount? = nil
    /// Where the cache says the account came from (`account_source`): `"broker"` for an account a broker signed in,
    /// nil when unknown (an entry another SDK or an older version wrote).
    var accountSource: String? = nil
}

/// A broker's token, before the accept step.
struct BrokeredToken: Sendable {
    /// The answer as a token response (lifetimes as the broker sent them: the accept step bounds them).
    var response: TokenResponse
    /// The authority the token is for, and where it goes.
    var authority: MSALAuthority
    var descriptor: AuthorityDescriptor
    /// The scopes the application asked for.
    var scopes: [String]
    /// The account the request named: the answer must be that account's.
    var account: MSALAccount?
    /// Whether the answer must carry an id token: a sign-in's does (it names the account); a silent answer for a
    /// known account may come without one.
    var requiresIdToken = true
    /// How a proof-of-possession answer is bound; nil for a bearer token.
    var proofOfPossession: BrokeredPoP? = nil
}

/// How a broker's proof-of-possession answer is bound.
enum BrokeredPoP: Sendable {
    /// To the application's key: the token is cached under it and the application signs each request itself.
    case applicationKey(PoPBinding)
    /// To the broker's own key (``BrokerKeyBinding``).
    case brokerKey(BrokerKeyBinding)
}

/// A proof-of-possession token bound to a key this application does not sign with (a broker's own key): the broker
/// signed the request (``signedRequest``), and the token, which the application cannot use, is not cached.
struct BrokerKeyBinding: Sendable {
    /// The broker's signed request; nil for an answer kept for its account and refresh token only.
    var signedRequest: String?
}

/// The accounts of a broker, and what it says of the device (the SSO extension's answers carry both).
struct BrokerAccountList: Sendable {
    var accounts: [MSALAccount]
    var device: SSOExtensionDeviceInfo?
}

/// How far a sign-out reaches (``MSALSignoutParameters``).
struct BrokerSignOutOptions: Sendable {
    var wipeAccount = false
    var wipeCacheForAllAccounts = false
}
