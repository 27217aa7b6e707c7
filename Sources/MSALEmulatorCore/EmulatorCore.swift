package import Foundation

/// Where a request is addressed: a tenant (or `common`/`organizations`/`consumers`) and, for B2C, a policy.
struct TenantContext: Sendable {
    enum Audience: Sendable, Equatable {
        case common, organizations, consumers
        case specific(EmulatedTenant)
    }
    var audience: Audience
    var policy: B2CPolicy?
    /// Path prefix for endpoint URLs, e.g. `/organizations`, `/<guid>`, `/tfp/<tenant>/<policy>`.
    var pathPrefix: String

    var tenant: EmulatedTenant? {
        if case .specific(let tenant) = audience { return tenant }
        return nil
    }
}

struct AuthorizationCode: Sendable {
    var clientId: String
    var redirectURI: String
    var userId: String
    var tenantId: String
    var policy: B2CPolicy?
    var scopes: RequestedScopes
    var granted: [String]
    var nonce: String?
    var codeChallenge: String?
    var codeChallengeMethod: String
    var expiresAt: Date
    var authTime: Date
    var redeemed = false
    var capabilities: [String] = []
    /// The device the sign-in proved (PKeyAuth in the web view), whose tokens the code gives.
    var deviceId: String? = nil
    /// The hub app of a nested app's sign-in (nested app authentication).
    var brokerClientId: String? = nil
}

struct RefreshRecord: Sendable {
    var clientId: String
    var familyId: String?
    var userId: String
    var tenantId: String
    var policy: B2CPolicy?
    var authTime: Date
    var expiresAt: Date
    /// The device the token is bound to (issued through the broker): it passes device-based Conditional Access.
    var deviceId: String? = nil
    /// The hub app of a nested app's refresh token (nested app authentication).
    var brokerClientId: String? = nil
}

struct BrowserSession: Sendable {
    /// Signed-in users, most recent first, with when they signed in.
    var users: [(id: String, authTime: Date)]
    var expiresAt: Date
}

/// An authorization in progress across the sign-in, account-picker and consent pages.
struct PendingAuthorization: Sendable {
    enum Kind: Sendable {
        case authorize(redirectURI: String, responseMode: String, state: String?, codeChallenge: String?, method: String, wantsClientInfo: Bool)
        case device(deviceCode: String)
    }
    var kind: Kind
    var context: TenantContext
    var clientId: String
    var scopes: RequestedScopes
    var nonce: String?
    var prompt: String?
    var loginHint: String?
    var userId: String?
    var sessionId: String
    var expiresAt: Date
    /// Steps already done (`consent`, `profile`).
    var done: Set<String> = []
    /// A nested app's hub: the code goes to its redirect URI.
    var nestedAuthBroker: NestedAuthBroker? = nil
    var maxAge: Int?
    /// Client capabilities (`xms_cc` of the `claims` parameter), for the access token of the code.
    var capabilities: [String] = []
    /// The device the web view proved (PKeyAuth).
    var deviceId: String? = nil
}

struct DeviceCodeRecord: Sendable {
    enum Status: Sendable { case pending, approved(userId: String, granted: [String], authTime: Date), declined, redeemed }
    var userCode: String
    var clientId: String
    var context: TenantContext
    var scopes: RequestedScopes
    var expiresAt: Date
    var interval: Int
    var lastPoll: Date?
    var status: Status
}

/// The emulator's state and request handling. All handlers run on this actor.
package actor EmulatorCore {
    var config: EmulatorConfiguration
    let keys: SigningKeys
    package nonisolated let clock: EmulatorClock
    let faults: FaultTable

    var codes: [String: AuthorizationCode] = [:]
    var refreshTokens: [String: RefreshRecord] = [:]
    var deviceCodes: [String: DeviceCodeRecord] = [:]
    var sessions: [String: BrowserSession] = [:]
    var pending: [String: PendingAuthorization] = [:]
    /// Scopes each user consented to per app: key `"<userId>|<clientId>"`.
    var consents: [String: Set<String>] = [:]
    /// Accepted client assertions until they expire, against replay: key `"<clientId>|<jti>"`.
    var usedClientAssertions: [String: Date] = [:]
    /// Registered certificates parsed once, by PEM text.
    var certificateCache: [String: ClientCertificate] = [:]
    /// The keys of the emulator's own federated (workload identity) issuer.
    let federatedKeys: SigningKeys
    /// The secret App Service requests must carry in `X-IDENTITY-HEADER`.
    let identityHeader: String
    /// Where Azure Arc challenge key files are written (none: Arc cannot challenge).
    let arcTokenDirectory: URL?
    /// Current Azure Arc challenge keys: key → its file and expiry.
    var arcKeys: [String: (path: String, expiresAt: Date)] = [:]
    /// The ports of the emulator's listeners, to recognise its own issuer URLs.
    var listenerPorts: Set<Int> = []
    /// The port of the HTTPS listener, once listening.
    var securePort: Int?
    /// Native-authentication flows in progress, by their current continuation token.
    var nativeAuthFlows: [String: NativeAuthFlow] = [:]
    /// Strong methods users registered during sign-in (`register/v1.0/*`), by user object id.
    var registeredStrongMethods: [String: [NativeAuthSettings.StrongMethod]] = [:]
    /// One-time passcodes the emulator sent (`GET /_emulator/native-auth/codes`), oldest first, at most 256.
    var sentCodes: [SentCode] = []
    /// Token requests received per `grant_type` (`GET /_emulator/stats`), for tests that count requests.
    var grantCounts: [String: Int] = [:]
    /// The clock's offset when each token was issued, by token id (`uti`, `jti`), for tokens issued while the clock
    /// was ahead (see ``EmulatorClock``); a token not listed was issued at offset 0.
    var issueOffsets: [String: TimeInterval] = [:]
    /// Revoked sign-in sessions by user object id (`POST /_emulator/revoke`), for continuous access evaluation.
    var sessionRevocations: [String: SessionRevocation] = [:]
    /// Token requests whose `claims` answered a claims challenge (`access_token.nbf`), for `GET /_emulator/stats`.
    var claimsChallengeAnswers = 0
    /// The emulated broker's state: the accounts signed in on this device and when (``brokerAnswer(_:correlationId:request:issuerBase:approve:)``).
    var broker = BrokerState()
    /// PKeyAuth challenges issued and not yet answered, by their context (``tokenDeviceChallenge(_:_:)``).
    var deviceChallenges: [String: DeviceAuthChallenge] = [:]
    /// Proof-of-possession nonces Graph issued (`WWW-Authenticate: PoP nonce`), with when each stops being accepted.
    var popNonces: [String: Date] = [:]

    static let sessionCookie = "ESTSAUTH"
    static let maxEntries = 20_000

    /// A core. Without `federatedKeys` the federated issuer signs with `keys`; without an identity header App Service
    /// requests are refused; without a token directory Azure Arc answers 500 (as cores made by tests need neither).
    package init(
        config: EmulatorConfiguration, keys: SigningKeys, clock: EmulatorClock, faults: FaultTable, federatedKeys: SigningKeys? = nil,
        identityHeader: String = "", arcTokenDirectory: URL? = nil
    ) {
        self.config = config
        self.keys = keys
        self.clock = clock
        self.faults = faults
        self.federatedKeys = federatedKeys ?? keys
        self.identityHeader = identityHeader
        self.arcTokenDirectory = arcTokenDirectory
    }

    package func setListenerPorts(_ ports: Set<Int>, securePort: Int? = nil) {
        listenerPorts = ports
        self.securePort = securePort
    }

    /// This emulator's HTTPS base URL as the request's client addresses it (its host, the HTTPS port): what issuers
    /// and discovered endpoints name, whichever listener was asked (clients such as the Azure CLI and web APIs accept
    /// only HTTPS authorities).
    func secureBaseURL(_ request: EmulatorRequest) -> String {
        guard request.scheme != "https", let securePort else { return request.baseURL }
        var host = request.host
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") { host = String(host[..<colon]) }
        return "https://\(host):\(securePort)"
    }

    var now: Date { clock.now }

    // MARK: Directory look-ups

    func tenant(matching segment: String) -> EmulatedTenant? {
        let lower = segment.lowercased()
        return config.tenants.first { $0.id == lower || $0.domains.contains { $0.lowercased() == lower } }
    }

    /// Resolves the tenant segment (and B2C policy) of a path.
    func resolveContext(tenantSegment: String, policyName: String?, tfp: Bool) throws(EntraError) -> TenantContext {
        let lower = tenantSegment.lowercased()
        if let policyName {
            guard let tenant = tenant(matching: tenantSegment), tenant.kind == .b2c else { throw EntraError.unknownTenant(tenantSegment) }
            guard let policy = tenant.policies.first(where: { $0.name.lowercased() == policyName.lowercased() }) else {
                throw EntraError(error: "invalid_request", code: 90008, message: "The request has referenced a policy '\(policyName)' that does not exist.", prefix: "AADB2C")
            }
            let prefix = tfp ? "/tfp/\(tenantSegment)/\(policyName)" : "/\(tenantSegment)/\(policyName)"
            return TenantContext(audience: .specific(tenant), policy: policy, pathPrefix: prefix)
        }
        switch lower {
        case "common": return TenantContext(audience: .common, pathPrefix: "/common")
        case "organizations": return TenantContext(audience: .organizations, pathPrefix: "/organizations")
        case "consumers": return TenantContext(audience: .consumers, pathPrefix: "/consumers")
        default:
            guard let tenant = tenant(matching: tenantSegment) else { throw EntraError.unknownTenant(tenantSegment) }
            return TenantContext(audience: .specific(tenant), pathPrefix: "/\(tenant.id)")
        }
    }

    func user(id: String) -> EmulatedUser? {
        config.users.first { $0.objectId == id }
    }

    func user(named name: String) -> EmulatedUser? {
        config.user(named: name)
    }

    func application(_ clientId: String) -> EmulatedApplication? {
        config.applications.first { $0.clientId == clientId.lowercased() || $0.clientId == clientId }
    }

    func homeTenant(of user: EmulatedUser) -> EmulatedTenant? {
        config.tenants.first { $0.id == user.homeTenantId }
    }

    /// The tenant a user's tokens are issued in for this context, or nil when the user cannot sign in there.
    func tokenTenant(for user: EmulatedUser, in context: TenantContext) -> EmulatedTenant? {
        guard let home = homeTenant(of: user) else { return nil }
        switch context.audience {
        case .common: return home.kind == .b2c ? nil : home
        case .organizations: return home.kind == .organization ? home : nil
        case .consumers: return home.kind == .consumers ? home : nil
        case .specific(let tenant):
            if tenant.id == home.id { return tenant }
            return tenant.kind != .b2c && user.guestOf.contains(tenant.id) ? tenant : nil
        }
    }

    // MARK: Consent

    func grantedScopes(userId: String, app: EmulatedApplication) -> Set<String> {
        consents["\(userId)|\(app.clientId)", default: []].union(app.preConsentedScopes)
    }

    /// The API scopes the request still needs consent for (a `.default` request needs none).
    func scopesNeedingConsent(_ scopes: RequestedScopes, userId: String, app: EmulatedApplication) -> [String] {
        let granted = grantedScopes(userId: userId, app: app)
        return scopes.full.filter { !$0.hasSuffix("/.default") && !granted.contains($0) }
    }

    /// Scopes of `scopes` that can go into a token: consented ones, with `.default` expanded to the static grant.
    func effectiveScopes(_ scopes: RequestedScopes, userId: String, app: EmulatedApplication) -> [String] {
        let granted = grantedScopes(userId: userId, app: app)
        var result: [String] = []
        for scope in scopes.full {
            if scope.hasSuffix("/.default") {
                let resource = RequestedScopes.split(scope).resource
                let expanded = granted.filter { RequestedScopes.split($0).resource == resource }.sorted()
                result.append(contentsOf: expanded.isEmpty ? [scope] : expanded)
            } else if granted.contains(scope) {
                result.append(scope)
            }
        }
        return result
    }

    func recordConsent(_ scopes: [String], userId: String, clientId: String) {
        consents["\(userId)|\(clientId)", default: []].formUnion(scopes)
    }

    // MARK: Housekeeping

    /// Drops expired entries so that state stays bounded.
    func prune() {
        let now = self.now
        if codes.count > 1000 { codes = codes.filter { $0.value.expiresAt > now && !$0.value.redeemed } }
        if pending.count > 1000 { pending = pending.filter { $0.value.expiresAt > now } }
        if deviceCodes.count > 1000 { deviceCodes = deviceCodes.filter { $0.value.expiresAt > now } }
        if sessions.count > 1000 { sessions = sessions.filter { $0.value.expiresAt > now } }
        if refreshTokens.count > EmulatorCore.maxEntries { refreshTokens = refreshTokens.filter { $0.value.expiresAt > now } }
        if issueOffsets.count > EmulatorCore.maxEntries { issueOffsets.removeAll() }
        for dict in [codes.count, pending.count, deviceCodes.count, sessions.count] where dict > EmulatorCore.maxEntries {
            codes.removeAll()
            pending.removeAll()
            deviceCodes.removeAll()
            sessions.removeAll()
        }
    }

    package func setConfiguration(_ update: @Sendable (inout EmulatorConfiguration) -> Void) {
        update(&config)
    }

    /// Revokes every refresh token of a user (or all, when `userId` is nil).
    package func revokeRefreshTokens(userId: String?) {
        if let userId { refreshTokens = refreshTokens.filter { $0.value.userId != userId } } else { refreshTokens.removeAll() }
    }
}
