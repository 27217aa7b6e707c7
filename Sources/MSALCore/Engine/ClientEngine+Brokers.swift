import Foundation

/// The engine's side of the broker port (``BrokerPort``): the brokers asked in one order, each only where its
/// eligibility rules let it take the request, and every broker's token through one accept step.
extension ClientEngine {
    /// The brokers that may take `request`, in the order they are asked. None for a confidential client, with the
    /// brokers turned off (``MSALGlobalConfig/brokerAvailability`` `.none` when the application was created), or for
    /// an authority other than Microsoft Entra's own (B2C, ADFS, External ID never use a broker, as Microsoft's
    /// clients decide: MSAL for iOS/macOS's `MSIDRequestControllerFactory` takes the broker only for AAD authorities,
    /// MSAL for Python's `_is_broker_capable` likewise).
    func eligibleBrokers(_ request: BrokerEligibility) async -> [any BrokerPort] {
        guard !brokers.isEmpty, settings.brokerAvailability != .none, settings.credential == nil,
              request.authority.descriptor.kind == .aad,
              request.authority.descriptor.tenant.lowercased() != "adfs" else { return [] }
        var eligible: [any BrokerPort] = []
        for broker in brokers where await broker.isEligible(request, engine: self) { eligible.append(broker) }
        return eligible
    }

    /// An interactive sign-in through the first broker that takes it; nil when none does (the caller shows its own
    /// web view).
    func brokeredInteractive(_ request: InteractiveRequest, authority: MSALAuthority) async throws -> MSALResult? {
        let eligibility = BrokerEligibility(operation: .interactive, authority: authority, xpcMode: request.xpcMode)
        for broker in await eligibleBrokers(eligibility) {
            guard let token = try await broker.interactive(request, authority: authority, engine: self) else { continue }
            return try await acceptBrokered(token, correlationId: request.correlationId, cache: cache)
        }
        return nil
    }

    /// A silent request's token from the first broker that takes it; `ownFlow` (the account's refresh token) when
    /// none does, or when the broker that failed allows it (``BrokerPort/allowsOwnFlow(after:request:eligibility:)``), its
    /// error then standing if the own flow fails too.
    func brokeredSilent(_ plan: UserTokenPlan, cache: any TokenCachePort,
                        ownFlow: () async throws -> MSALResult) async throws -> MSALResult {
        // An application without brokers (most) reads nothing more.
        guard !brokers.isEmpty else { return try await ownFlow() }
        let source = try? cache.read { document in
            document.accountSource(homeAccountId: plan.homeAccountId, environments: plan.environments)
        }
        let eligibility = BrokerEligibility(operation: .silent, authority: plan.authority, xpcMode: plan.request.xpcMode,
                                            account: plan.account, accountSource: source ?? nil)
        for broker in await eligibleBrokers(eligibility) {
            let token: BrokeredToken?
            do {
                token = try await broker.silent(plan, engine: self)
            } catch let brokerError as MSALErrorInfo
                where broker.allowsOwnFlow(after: brokerError, request: plan.request, eligibility: eligibility) {
                log(plan.correlationId).info("The \(broker.name) failed the silent request; trying the cached refresh token.")
                do { return try await ownFlow() } catch { throw brokerError }
            }
            guard let token else { continue }
            return try await acceptBrokered(token, correlationId: plan.correlationId, cache: cache)
        }
        return try await ownFlow()
    }

    /// Signs `account` out of every broker that holds it (a broker's failure is logged: the local sign-out stands).
    func brokeredSignOut(_ account: MSALAccount, _ options: BrokerSignOutOptions, correlationId: UUID) async {
        let eligibility = BrokerEligibility(operation: .signOut, authority: settings.authority, account: account)
        for broker in await eligibleBrokers(eligibility) {
            do {
                try await broker.signOut(account, options, engine: self, correlationId: correlationId)
            } catch {
                log(correlationId).info("The \(broker.name) did not sign the account out: \((error as? MSALErrorInfo)?.errorDescription ?? "failed").")
            }
        }
    }

    /// The accounts the brokers hold for this application, and the first device information one of them gave; nil
    /// when no broker answered.
    func brokeredAccounts(signedInOnly: Bool, correlationId: UUID) async throws -> BrokerAccountList? {
        let eligibility = BrokerEligibility(operation: .accounts, authority: settings.authority)
        var answered: BrokerAccountList?
        for broker in await eligibleBrokers(eligibility) {
            guard let list = try await broker.accounts(signedInOnly: signedInOnly, engine: self,
                                                       correlationId: correlationId) else { continue }
            answered = BrokerAccountList(accounts: (answered?.accounts ?? []) + list.accounts,
                                         device: answered?.device ?? list.device)
        }
        return answered
    }

    /// What the first broker that answers says of the device; nil when none does.
    func brokeredDeviceInformation(correlationId: UUID) async throws -> SSOExtensionDeviceInfo? {
        let eligibility = BrokerEligibility(operation: .deviceInformation, authority: settings.authority)
        for broker in await eligibleBrokers(eligibility) {
            if let info = try await broker.deviceInformation(engine: self, correlationId: correlationId) { return info }
        }
        return nil
    }

    /// Whether the Apple brokers (the SSO extension, Authenticator) may take a request for `authority`, as MSAL for
    /// iOS/macOS decides before any broker controller is made: a broker-capable redirect URI
    /// (`MSALPublicClientApplication.m:1782-1796`, `requestType`: the local flow otherwise), and an authority that is
    /// validated, not one the application lists as known (`MSIDRequestParameters+Broker.m:32-41`, `shouldUseBroker`;
    /// `MSALPublicClientApplication.m:1718-1751`).
    func appleBrokersMayAnswer(_ request: BrokerEligibility) -> Bool {
        guard settings.brokerCapableRedirectUri else {
            settings.log.info("The redirect URI is not broker-capable (msauth.<bundle id>://auth): the Apple brokers are not asked.")
            return false
        }
        let descriptor = request.authority.descriptor
        return !settings.knownAuthorities.contains { $0.host.lowercased() == descriptor.host.lowercased() }
    }

    /// The one accept step of every broker's token: its lifetimes bounded (a broker is another process's code, and
    /// an out-of-range number must not reach the cache's arithmetic), the account bound to the one the request
    /// named (``MSALInternalError/internalErrorMismatchedUser`` otherwise, as the web flow), the id token checked as
    /// the identity provider's (required when no account was named: it names the account), stored, and reported
    /// with ``MSALTokenSource/broker``.
    func acceptBrokered(_ token: BrokeredToken, correlationId: UUID, cache: any TokenCachePort) async throws -> MSALResult {
        let resolved = try await resolve(token.descriptor, correlationId: correlationId)
        let response = Self.bounded(token.response)
        var redemption = TokenRedemption(
            resolved: resolved, scopes: token.scopes, correlationId: correlationId, authority: token.authority,
            knownAccount: token.account, knownHomeAccountId: token.account?.identifier,
            requiresIdToken: token.requiresIdToken, accountSource: Self.brokerAccountSource)
        switch token.proofOfPossession {
        case .applicationKey(let binding): redemption.proofOfPossession = binding
        case .brokerKey(let binding): redemption.brokerKeyBinding = binding
        case nil: break
        }
        let result = try await accept(response, redemption, cache: cache)
        RequestDiagnostics.current?.noteSource(.broker)
        log(correlationId).info("A broker gave the token.")
        return result
    }

    /// The `account_source` of an account a broker signed in, as MSAL for Python records it (`_GRANT_TYPE_BROKER`).
    static let brokerAccountSource = "broker"

    /// A broker's answer with its lifetimes bounded (``brokerLifetime(_:)``).
    static func bounded(_ response: TokenResponse) -> TokenResponse {
        var response = response
        response.expiresIn = brokerLifetime(response.expiresIn)
        response.extExpiresIn = brokerLifetime(response.extExpiresIn)
        response.refreshIn = brokerLifetime(response.refreshIn)
        return response
    }

    /// A lifetime from a broker: nil unless finite, at least 0 and at most ``ExternalNumber/maximumLifetime``.
    static func brokerLifetime(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds.isFinite else { return nil }
        return min(max(seconds, 0), ExternalNumber.maximumLifetime)
    }
}
