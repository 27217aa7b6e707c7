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
}

/// The machinery behind ``MSALPublicClientApplication``: cache, authority resolution, token requests.
/// Immutable; the cache has one owner (``CacheOwner``) and refreshes one coordinator (``RefreshCoordinator``).
final class ClientEngine: Sendable {
    let settings: EngineSettings
    let http: any MSALHTTPClient
    let clock: any MSALClock
    let cache: CacheOwner
    let resolver: AuthorityResolver
    /// The platform's user agent, for interactive calls that bring none.
    let defaultAuthenticator: (any MSALWebAuthenticator)?
    /// Where interactive sign-ins are registered for cancellation: the process's, except in tests.
    let sessions: InteractiveSessions
    let refreshes = RefreshCoordinator()
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
    /// Concurrent app-token requests for the same token share one token request.
    let appTokenRequests = SingleFlight<MSALAppTokenResult>()
    /// How the device code flow waits between polls (replaced in tests).
    let pollingSleep = LockedBox<PollingSleep>(ClientEngine.realSleep)

    struct ProfileKey: Hashable {
        var homeAccountId: String
        var realm: String
    }

    init(settings: EngineSettings, http: any MSALHTTPClient, clock: any MSALClock, cache: CacheOwner,
         defaultAuthenticator: (any MSALWebAuthenticator)? = nil, resolver: AuthorityResolver = AuthorityResolver(),
         sessions: InteractiveSessions = .process) {
        self.settings = settings
        self.sessions = sessions
        self.defaultAuthenticator = defaultAuthenticator
        // Every request of the application passes here: traced at the verbose level and timed for the metadata.
        self.http = TracingHTTPClient.wrapping(http, log: settings.log)
        self.clock = clock
        self.cache = cache
        self.resolver = resolver
        self.policy = CachedTokenPolicy(expirationBuffer: settings.tokenExpirationBuffer,
                                        extendedLifetimeEnabled: settings.extendedLifetimeEnabled)
    }

    /// The application's log for one request.
    func log(_ correlationId: UUID) -> MSALLog { settings.log.with(correlationId: correlationId) }

    func requestContext(_ correlationId: UUID) -> TokenRequestContext {
        TokenRequestContext(http: http, clientId: settings.clientId, correlationId: correlationId,
                              retryCount: settings.http.retryCount, retryInterval: settings.http.retryInterval,
                              timeout: settings.http.timeout, clock: clock,
                              log: log(correlationId), throttle: throttle)
    }

    /// Runs a public token call, gives its result the metadata of what it did, and reports it to the telemetry
    /// callback, if any.
    /// `measure` false: `body` gives its result metadata itself (the silent flow, whose remembered hits skip the
    /// collector).
    func reporting(_ api: TelemetryReporter.API, correlationId: UUID, authority: MSALAuthority?, measure: Bool = true,
                   _ body: () async throws -> MSALResult) async throws -> MSALResult {
        let kind = (authority ?? settings.authority).descriptor.kind
        return try await settings.telemetry.report(api, clientId: settings.clientId,
                                                   authorityType: kind == .b2c ? "B2C" : kind == .ciam ? "CIAM" : "AAD",
                                                   correlationId: correlationId, clock: clock) {
            measure ? try await measured(body) : try await body()
        }
    }

    /// The authority a request uses: its own or the application's, which must be of the same kind.
    func requestAuthority(_ requested: MSALAuthority?, correlationId: UUID) throws -> MSALAuthority {
        guard let requested else { return settings.authority }
        guard requested.descriptor.kind == settings.authority.descriptor.kind else {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                         "The request's authority must be of the same kind as the application's (\(settings.authority.descriptor.kind)).",
                                         correlationId: correlationId)
        }
        return requested
    }

    // MARK: Silent

    /// What the cache lookup of a silent request established: where it goes and the access token it found.
    private struct SilentTarget {
        var account: MSALAccount
        var homeAccountId: String
        var authority: MSALAuthority
        var descriptor: AuthorityDescriptor
        var environments: [String]
        var now: Date
        var lookup: (entry: AccessTokenEntry, idToken: String?, document: TokenCacheDocument, changeCount: Int)?
    }

    /// Drives ``SilentFlowStateMachine``: performs each action it asks for (memo, cache, shared refresh) and
    /// reports the outcome, until it returns a result or fails. `consultMemo` false starts at the cache lookup
    /// (the caller already found no remembered hit).
    func acquireTokenSilent(_ request: SilentRequest, consultMemo: Bool = true) async throws -> MSALResult {
        let correlationId = request.correlationId
        let memoKey = request.account.map {
            SilentHitMemo.Key(account: ObjectIdentifier($0), authority: request.authority.map(ObjectIdentifier.init),
                              scopes: request.scopes)
        }
        var machine = SilentFlowStateMachine(policy: policy, forceRefresh: request.forceRefresh,
                                             hasClaims: request.hasClaimsRequest, correlationId: correlationId,
                                             homeAccountId: request.account?.identifier)
        var action = machine.next(.started(memoEligible: consultMemo && memoKey != nil))
        var memoHit: SilentHitMemo.Hit?
        var target: SilentTarget?
        var refreshed: MSALResult?
        while true {
            switch action {
            case .consultMemo:
                memoHit = try memoKey.flatMap(hitMemo.lookup).flatMap { try unchangedSinceRecorded($0) ? $0 : nil }
                action = machine.next(.memoConsulted(memoHit?.times, now: clock.now()))
            case .returnMemoized:
                guard let memoHit else { throw Self.unexpectedStep(correlationId) }
                RequestDiagnostics.current?.noteSource(.cache)
                return MSALResult(payload: memoHit.payload, correlationId: correlationId)
            case .lookUpCache:
                let found = try await lookUpSilent(request)
                target = found
                let times = found.lookup.map { CachedTokenTimes($0.entry) }
                noteSilentCacheDecision(times, now: found.now, request: request)
                action = machine.next(.cacheLookedUp(times, now: found.now))
            case .returnCached:
                guard let target, let lookup = target.lookup else { throw Self.unexpectedStep(correlationId) }
                let result = cachedResult(lookup.entry, idToken: lookup.idToken, extended: false, target: target,
                                          correlationId: correlationId)
                if let memoKey {
                    hitMemo.record(memoKey, SilentHitMemo.Hit(
                        account: target.account, authority: request.authority, document: lookup.document,
                        changeCount: lookup.changeCount, entry: lookup.entry, payload: result.payload))
                }
                return result
            case .refresh:
                guard let target else { throw Self.unexpectedStep(correlationId) }
                let key = [target.homeAccountId.lowercased(), target.descriptor.urlString.lowercased(),
                           request.scopes.map { $0.lowercased() }.sorted().joined(separator: " "), request.claims ?? ""]
                    .joined(separator: "|")
                let (account, homeAccountId, descriptor, environments) =
                    (target.account, target.homeAccountId, target.descriptor, target.environments)
                let seenSecret = target.lookup?.entry.secret
                // One redemption of the account's refresh token at a time, whatever the scopes (an identity provider
                // may accept each refresh token once): requests for other scopes wait, then use the rotated one.
                let refreshTokenKey = "refresh|" + target.homeAccountId.lowercased() + "|" + target.descriptor.host.lowercased()
                do {
                    refreshed = try await refreshes.run(key) { [self, machine] in
                        // One refresh across processes too: under the refresh lock, a token another request or
                        // process stored while this one waited is used instead of a second request.
                        try await cache.withRefreshLock(key: refreshTokenKey, timeout: refreshLockTimeout) { [self] in
                            if let stored = try await tokenStoredMeanwhile(request, seenSecret: seenSecret) {
                                return stored
                            }
                            return try await refresh(request, machine: machine, account: account,
                                                     homeAccountId: homeAccountId, descriptor: descriptor,
                                                     environments: environments)
                        }
                    }
                    action = machine.next(.refreshSucceeded)
                } catch {
                    action = machine.next(.refreshFailed(error))
                }
            case .returnRefreshed:
                guard let refreshed else { throw Self.unexpectedStep(correlationId) }
                return refreshed
            case .returnFallback(let fallback):
                guard let target, let lookup = target.lookup else { throw Self.unexpectedStep(correlationId) }
                switch fallback {
                case .stillValid(let code):
                    log(correlationId).warning("Proactive refresh failed (\(code)); returning the still-valid cached token.")
                case .extendedLifetime:
                    log(correlationId).warning("The service is unavailable; returning a token within its extended lifetime.")
                }
                return cachedResult(lookup.entry, idToken: lookup.idToken, extended: fallback == .extendedLifetime,
                                    target: target, correlationId: correlationId)
            case .fail(let error):
                throw error
            case .redeem, .acceptTokens:
                throw Self.unexpectedStep(correlationId)
            }
        }
    }

    /// Validates a silent request, settles the authority and cloud it goes to, and reads the cache for its
    /// access token (no network, except the first time a domain-named tenant is resolved).
    private func lookUpSilent(_ request: SilentRequest) async throws -> SilentTarget {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        guard let account = request.account, let homeAccountId = account.identifier else {
            throw MSALErrorInfo.internal(.internalErrorAccountRequired, "A silent request needs an account.",
                                         correlationId: correlationId)
        }
        let authority = try requestAuthority(request.authority, correlationId: correlationId)
        let descriptor = silentAuthority(authority.descriptor, account: account)
        // Tokens are looked up (and redeemed) only within the cloud of the authority the request goes to; the
        // account's own environment counts only when it is an alias of that cloud.
        let environments = KnownAliases.expand([descriptor.host] + (await resolver.aliases(forEnvironment: descriptor.host)))
        let realms = try await realmsToLookUp(descriptor, requested: authority.descriptor, account: account,
                                              correlationId: correlationId)
        let scopeSet = ScopeSet(request.scopes)
        let capabilities = TokenCacheDocument.capabilitiesMarker(settings.clientCapabilities)
        let now = clock.now()
        let lookup: (entry: AccessTokenEntry, idToken: String?, document: TokenCacheDocument, changeCount: Int)? =
            try cache.read { document in
                for realm in realms {
                    if let entry = document.findAccessToken(homeAccountId: homeAccountId, environments: environments,
                                                            clientId: settings.clientId, realm: realm, scopes: scopeSet,
                                                            capabilities: capabilities) {
                        let idToken = document.idToken(homeAccountId: homeAccountId, environments: environments,
                                                       realm: entry.realm, clientId: settings.clientId)?.secret
                        return (entry, idToken, document, document.changeCount)
                    }
                }
                return nil
            }
        return SilentTarget(account: account, homeAccountId: homeAccountId, authority: authority, descriptor: descriptor,
                            environments: environments, now: now, lookup: lookup)
    }

    /// The token another process (or application object) stored for `request` after this one looked and found
    /// `seenSecret` (or nothing), when it may be returned as it is; nil otherwise. Requests with claims always go
    /// to the identity provider.
    private func tokenStoredMeanwhile(_ request: SilentRequest, seenSecret: String?) async throws -> MSALResult? {
        guard !request.hasClaimsRequest else { return nil }
        let target = try await lookUpSilent(request)
        guard let lookup = target.lookup, lookup.entry.secret != seenSecret,
              policy.isReturnable(lookup.entry, now: target.now) else { return nil }
        log(request.correlationId).info("Another process refreshed this token while this one waited; using its result.")
        return cachedResult(lookup.entry, idToken: lookup.idToken, extended: false, target: target,
                            correlationId: request.correlationId)
    }

    /// How long a token request waits for another process's request for the same token: that request's own
    /// timeout and a margin, at most ten minutes.
    var refreshLockTimeout: TimeInterval { min(settings.http.timeout + 10, 600) }

    /// Whether the cache document is the one a remembered hit was read from, unchanged since.
    func unchangedSinceRecorded(_ hit: SilentHitMemo.Hit) throws -> Bool {
        try cache.read { document in document === hit.document && document.changeCount == hit.changeCount }
    }

    private func cachedResult(_ entry: AccessTokenEntry, idToken: String?, extended: Bool, target: SilentTarget,
                              correlationId: UUID) -> MSALResult {
        cachedResult(entry, idToken: idToken, extended: extended, account: target.account, authority: target.authority,
                     descriptor: target.descriptor, correlationId: correlationId)
    }

    /// The error for a step the silent flow's driver does not expect (a defect, never outside input).
    static func unexpectedStep(_ correlationId: UUID) -> MSALErrorInfo {
        .internal(.internalErrorUnexpected, "The silent flow asked for an unexpected step.", correlationId: correlationId)
    }

    /// For `common`, `organizations` and `consumers`, silent requests go to the account's home tenant.
    func silentAuthority(_ descriptor: AuthorityDescriptor, account: MSALAccount) -> AuthorityDescriptor {
        guard descriptor.kind == .aad, descriptor.tenantKind != .specific,
              let tenant = account.homeAccountId?.tenantId, !tenant.isEmpty else { return descriptor }
        return descriptor.withTenant(tenant)
    }

    /// The realms a cached token may be stored under. Tokens are stored under the tenant id of the response:
    /// for B2C the account's tenant; for an AAD authority named by a domain, the tenant id its metadata gives
    /// (cached per process, so only the first silent call of a process may fetch it). For tokens written by SDKs
    /// that store the authority's tenant segment (MSAL for Python with `/common`), the segment as requested too.
    private func realmsToLookUp(_ descriptor: AuthorityDescriptor, requested: AuthorityDescriptor, account: MSALAccount,
                                correlationId: UUID) async throws -> [String] {
        if descriptor.kind == .b2c {
            return [account.homeAccountId?.tenantId ?? descriptor.tenant]
        }
        var realms = [descriptor.tenant]
        if descriptor.kind == .aad, descriptor.tenantKind == .specific, descriptor.tenant.utf8.contains(UInt8(ascii: ".")) {
            let resolved = try await resolver.resolve(descriptor, knownAuthorities: settings.knownAuthorities, http: http,
                                                      correlationId: correlationId,
                                                      timeout: settings.http.timeout)
            if let tenantId = resolved.metadata.tokenEndpoint.pathComponents.dropFirst().first {
                realms.insert(tenantId, at: 0)
            }
        }
        if requested.tenant != descriptor.tenant { realms.append(requested.tenant) }
        return realms
    }

    /// Builds a result from a cached access token, with no network (and notes the cache as its source).
    func cachedResult(_ entry: AccessTokenEntry, idToken: String?, extended: Bool, account: MSALAccount,
                      authority: MSALAuthority, descriptor: AuthorityDescriptor, correlationId: UUID) -> MSALResult {
        RequestDiagnostics.current?.noteSource(.cache)
        let profile = tenantProfile(homeAccountId: account.identifier ?? "", realm: entry.realm,
                                    environment: entry.environment, rawIdToken: idToken)
        let resultAuthority = descriptor == authority.descriptor ? authority : authorityObject(for: descriptor)
        return MSALResult(accessToken: entry.secret, expiresOn: entry.expiresOn, extendedLifeTimeToken: extended,
                          idToken: idToken, scopes: Scopes.resultScopes(entry.scopes.scopes), tenantProfile: profile,
                          account: account, authority: resultAuthority, correlationId: correlationId)
    }

    /// The public authority object for `descriptor`, made once and remembered.
    func authorityObject(for descriptor: AuthorityDescriptor) -> MSALAuthority {
        if let known = resultAuthorities.withLock({ $0[descriptor] }) { return known }
        let made = MSALAuthority.make(descriptor)
        resultAuthorities.withLock { memo in
            if memo.count > 256 { memo.removeAll() }
            memo[descriptor] = made
        }
        return made
    }

    /// The tenant profile of `realm`, parsed from its id token once and remembered (keyed by the id token text,
    /// so a new id token gives a new profile).
    func tenantProfile(homeAccountId: String, realm: String, environment: String, rawIdToken: String?) -> MSALTenantProfile {
        let memoKey = ProfileKey(homeAccountId: homeAccountId, realm: realm)
        if let rawIdToken, let memo = tenantProfiles.withLock({ $0[memoKey] }), memo.raw == rawIdToken {
            return memo.profile
        }
        let claims = rawIdToken.flatMap { try? IdToken(raw: $0) }
        let uid = MSALAccountId(identifier: homeAccountId).objectId
        let oid = claims?.oid ?? claims?.sub
        let profile = MSALTenantProfile(identifier: oid, environment: environment, tenantId: realm,
                                        isHomeTenantProfile: oid == nil || uid == nil || oid == uid
                                            || (uid?.hasPrefix(oid ?? "\u{0}") ?? false),
                                        claims: claims?.claims)
        if let rawIdToken {
            tenantProfiles.withLock { memo in
                if memo.count > 65_536 { memo.removeAll() }
                memo[memoKey] = (rawIdToken, profile)
            }
        }
        return profile
    }
}
