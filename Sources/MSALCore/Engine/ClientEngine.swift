import Foundation

/// A silent request, copied from ``MSALSilentTokenParameters`` when the call starts.
struct SilentRequest: Sendable {
    var scopes: [String]
    var account: MSALAccount?
    var authority: MSALAuthority?
    var claims: String?
    var hasClaimsRequest: Bool
    var forceRefresh: Bool
    var correlationId: UUID
    var extraQueryParameters: [String: String]
    /// Whether the account's own refresh token may be used when the SSO extension fails
    /// (``MSALSilentTokenParameters/allowUsingLocalCachedRtWhenSsoExtFailed``).
    var allowLocalRefreshToken = true
    /// ``MSALTokenParameters/msalXpcMode`` (macOS).
    var xpcMode: MSALXpcMode = .disabled
    /// A proof-of-possession request (``MSALTokenParameters/authenticationScheme``); nil for a bearer token.
    var popScheme: MSALAuthenticationSchemePop?
}

/// The machinery behind the client applications: what one application's flows share (its settings, transport,
/// clock, token cache port, authority resolution, the acquisition driver), wired together once. The flows are its
/// extensions; every token they get from the cache or the identity provider goes through ``TokenAcquisition`` or
/// the redeem step (``redeem(_:parameters:cache:)``).
final class ClientEngine: Sendable {
    let settings: EngineSettings
    let http: any MSALHTTPClient
    let clock: any MSALClock
    /// The application's token cache (for a partitioned one, calls work on ports of their partition instead).
    let cache: DocumentCachePort
    let resolver: AuthorityResolver
    let acquisition: TokenAcquisition
    /// The platform's user agent, for interactive calls that bring none.
    let defaultAuthenticator: (any MSALWebAuthenticator)?
    /// The application's brokers (``BrokerPort``), in the order they are asked: Microsoft's Enterprise SSO extension
    /// first, then the Linux identity broker, then Microsoft Authenticator, as MSAL for iOS/macOS chains its
    /// controllers (`MSIDRequestControllerFactory`: the SSO extension before the broker app, the local flow last).
    let brokers: [any BrokerPort]
    /// The broker app reached by opening its URL (Microsoft Authenticator), if any.
    let brokerApp: MSALBrokerApp?
    /// The device's registrations (workplace join), for device tokens and metadata.
    let workplaceJoin: (any MSALWorkplaceJoinStore)?
    /// The platform's embedded web view, for calls that ask for one (``MSALWebviewType/wkWebView``).
    let embeddedAuthenticator: (any MSALWebAuthenticator)?
    /// Where interactive sign-ins are registered for cancellation: the process's, except in tests.
    let sessions: InteractiveSessions
    let hitMemo = SilentHitMemo()
    let throttle = ThrottleStore()
    /// The signing keys of the authorities this application uses (``SigningKeyStore``).
    let signingKeys = SigningKeyStore()
    let interactiveRunning = LockedBox(false)
    let currentAccountMemory = LockedBox<MSALAccount?>(nil)
    let policy: CachedTokenPolicy
    let tenantProfiles = LockedBox<[ProfileKey: (raw: String, profile: MSALTenantProfile)]>([:])
    let resultAuthorities = LockedBox<[AuthorityDescriptor: MSALAuthority]>([:])
    /// The app-token targets settled per authority (``AppTokenTarget``).
    let appTokenTargets = LockedBox<[AuthorityDescriptor: AppTokenTarget]>([:])
    /// The domain-named authorities whose tenant id this process has put in the cache (``resolve(_:correlationId:)``).
    let tenantDomainsRecorded = LockedBox<Set<AuthorityDescriptor>>([])

    struct ProfileKey: Hashable {
        var homeAccountId: String
        var realm: String
    }

    init(settings: EngineSettings, http: any MSALHTTPClient, clock: any MSALClock, cache: DocumentCachePort,
         defaultAuthenticator: (any MSALWebAuthenticator)? = nil,
         embeddedAuthenticator: (any MSALWebAuthenticator)? = nil, resolver: AuthorityResolver = AuthorityResolver(),
         sessions: InteractiveSessions = .process, broker: (any MSALBrokerTransport)? = nil,
         brokerApp: MSALBrokerApp? = nil, ssoExtension: (any MSALSSOExtensionPerformer)? = nil,
         workplaceJoin: (any MSALWorkplaceJoinStore)? = nil) {
        self.brokerApp = brokerApp
        self.workplaceJoin = workplaceJoin
        self.settings = settings
        self.sessions = sessions
        self.defaultAuthenticator = defaultAuthenticator
        self.embeddedAuthenticator = embeddedAuthenticator
        // Every request of the application passes here: traced at the verbose level and timed for the metadata.
        self.http = TracingHTTPClient.wrapping(http, log: settings.log)
        self.clock = clock
        self.cache = cache
        self.resolver = resolver
        self.policy = CachedTokenPolicy(expirationBuffer: settings.tokenExpirationBuffer,
                                        extendedLifetimeEnabled: settings.extendedLifetimeEnabled)
        var brokers: [any BrokerPort] = []
        if let ssoExtension {
            brokers.append(SSOExtensionBroker(performer: ssoExtension, ownKey: AuthenticatorBrokerRequest.makeBrokerKey(),
                                              keyStore: brokerApp?.keyStore))
        }
        if let broker { brokers.append(LinuxBroker(client: BrokerClient(transport: broker, clock: clock, log: settings.log))) }
        let authenticator = brokerApp.map(AuthenticatorBroker.init(app:))
        if let authenticator { brokers.append(authenticator) }
        self.brokers = brokers
        self.acquisition = TokenAcquisition(policy: policy, clock: clock, log: settings.log, flights: SingleFlight())
        if let authenticator {
            // An answer of the broker app that arrives after a relaunch, when no request waits for it.
            AuthenticatorSessions.process.registerOrphanHandler(owner: self) { [weak self] url, source in
                guard let self else { return false }
                return authenticator.takeOrphanedAnswer(url, sourceApplication: source, engine: self)
            }
        }
    }

    /// The application's log for one request.
    func log(_ correlationId: UUID) -> MSALLog { settings.log.with(correlationId: correlationId) }

    func requestContext(_ correlationId: UUID) -> TokenRequestContext {
        var context = TokenRequestContext(http: http, clientId: settings.clientId, correlationId: correlationId,
                                          retryCount: settings.http.retryCount, retryInterval: settings.http.retryInterval,
                                          timeout: settings.http.timeout, clock: clock,
                                          log: log(correlationId), throttle: throttle)
        if settings.credential == nil { context.deviceAuthentication = deviceAuthentication }
        return context
    }

    /// A public client's answer to a PKeyAuth challenge: signed with the device's registration in the challenge's
    /// tenant (or its primary one) when the application has a registration store, else the empty answer.
    var deviceAuthentication: @Sendable (PKeyAuthChallenge, URL) -> String {
        { [workplaceJoin, clock] challenge, audience in
            let registration = (try? workplaceJoin?.registration(tenantId: challenge.tenantId)) ?? nil
            return PKeyAuthResponse.authorization(challenge, audience: audience, registration: registration, now: clock.now())
        }
    }

    /// Resolves `descriptor` (validation, metadata, aliases: once per process) through the application's transport.
    /// Every flow resolves its authority here.
    /// A domain-named tenant's id is kept in the token cache the first time (``TokenCacheDocument/recordTenantDomain(of:tenantId:)``).
    func resolve(_ descriptor: AuthorityDescriptor, correlationId: UUID) async throws -> ResolvedAuthority {
        let resolved = try await resolver.resolve(descriptor, knownAuthorities: settings.knownAuthorities, http: http,
                                                  correlationId: correlationId, timeout: settings.http.timeout)
        if descriptor.rules.tenantNeedsResolutionForRealm, let tenantId = resolved.tenantId,
           tenantDomainsRecorded.withLock({ $0.insert(descriptor).inserted }) {
            let known = (try? cache.read { $0.tenantId(forDomainOf: descriptor, hosts: []) }) ?? nil
            if known != tenantId {
                _ = try? await cache.update { $0.recordTenantDomain(of: descriptor, tenantId: tenantId) }
            }
        }
        return resolved
    }

    /// Runs a public token call, gives its result the metadata of what it did, and reports it to the telemetry
    /// callback, if any.
    /// `measure` false: `body` gives its result metadata itself (the silent flow, whose remembered hits skip the
    /// collector).
    func reporting(_ api: TelemetryReporter.API, correlationId: UUID, authority: MSALAuthority?, measure: Bool = true,
                   _ body: () async throws -> MSALResult) async throws -> MSALResult {
        let rules = (authority ?? settings.authority).descriptor.rules
        return try await settings.telemetry.report(api, clientId: settings.clientId, authorityType: rules.telemetryName,
                                                   correlationId: correlationId, clock: clock) {
            measure ? try await measured(body) : try await body()
        }
    }

    /// The authority a request uses: its own or the application's, which must be of the same kind.
    func requestAuthority(_ requested: MSALAuthority?, correlationId: UUID) throws -> MSALAuthority {
        guard let requested else { return settings.authority }
        guard settings.authority.descriptor.rules.accepts(requested: requested.descriptor) else {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                         "The request's authority must be of the same kind as the application's (\(settings.authority.descriptor.kind)).",
                                         correlationId: correlationId)
        }
        return requested
    }

    /// A silent request for a user's token, through the acquisition driver, from the cache lookup on (the caller
    /// already found no remembered hit: ``acquireTokenSilentMeasured(_:cache:)``).
    func acquireTokenSilent(_ request: SilentRequest, cache: (any TokenCachePort)? = nil) async throws -> MSALResult {
        let port = cache ?? self.cache
        let plan = try await userTokenPlan(request)
        return try await acquisition.run(plan, cache: port)
    }

    /// How long a token request waits for another process's request for the same token: that request's own
    /// timeout and a margin, at most ten minutes.
    var refreshLockTimeout: TimeInterval { min(settings.http.timeout + 10, 600) }
}
