import Foundation

/// The top-level sections of the unified cache document that MSAL understands.
enum CacheSection: String, CaseIterable, Sendable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"
    case account = "Account"
    case appMetadata = "AppMetadata"

    private static let utf8Names: [[UInt8]] = allCases.map { Array($0.rawValue.utf8) }

    /// The section for a top-level name as read, matched without regard to case, without making a string when the
    /// name is spelled exactly.
    init?(documentName name: CacheJSONReader.Name) {
        guard case .raw(let bytes) = name else {
            self.init(documentName: name.string)
            return
        }
        for (index, known) in Self.utf8Names.enumerated() where known.count == bytes.count {
            let same = known.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            if same { self = Self.allCases[index]; return }
        }
        self.init(documentName: name.string)
    }

    /// The section for a top-level name, matched without regard to case.
    init?(documentName name: String) {
        if let exact = CacheSection(rawValue: name) { self = exact; return }
        guard let match = CacheSection.allCases.first(where: { CacheStrings.equalsLowercased(name, $0.rawValue.lowercased()) })
        else { return nil }
        self = match
    }
}

/// The unified token cache as one in-memory document, indexed so that lookups never scan all tokens.
///
/// The document has the shape MSAL for Python (and MSAL.NET, MSAL Node) write: an object of sections
/// (`AccessToken`, `RefreshToken`, `IdToken`, `Account`, `AppMetadata`), each mapping an entry key to an
/// entry object. Sections and fields MSAL does not know are kept and written back unchanged.
///
/// An entry that cannot be read (not an object, or missing a required field, or a required field of the
/// wrong type) is **kept verbatim** in its section, so another SDK's data is never lost, but it is
/// invisible to lookups; ``parseWarnings`` says how many were skipped. Saving an entry under the same key
/// replaces it, and ``removeAccount(homeAccountId:environments:clientId:familyId:)`` also drops unreadable
/// entries whose `home_account_id` names the removed account.
///
/// Not thread-safe: one actor owns a document.
final class TokenCacheDocument {
    var accessTokens = AccessTokenIndex()
    var refreshTokenEntries = HomeIndexedEntries<RefreshTokenEntry>()
    var idTokenEntries = HomeIndexedEntries<IdTokenEntry>()
    var accountEntries = HomeIndexedEntries<AccountEntry>()
    var appMetadataEntries: [String: AppMetadataEntry] = [:]

    /// Unreadable entries, kept verbatim per section.
    var unreadableEntries: [CacheSection: [String: JSONValue]] = [:]
    /// Top-level sections MSAL does not know, verbatim.
    var unknownSections: [String: JSONValue] = [:]
    /// The order of the top-level sections: known ones by section, unknown ones by name.
    var sectionOrder: [Either] = []
    /// Shared scope sets per `target` string, so equal targets are split and lowercased once.
    var scopeSets: [String: ScopeSet] = [:]

    /// A top-level section: known or not.
    enum Either: Hashable {
        case known(CacheSection)
        case unknown(String)
    }

    /// Warnings from parsing (entries skipped); they never contain a secret.
    var parseWarnings: [String] = []
    /// Set by parsing when a section named a key twice; while `replacesDuplicateKeys` is set, parsing drops what a
    /// key held before storing its new entry.
    var sawDuplicateKeys = false
    var replacesDuplicateKeys = false
    /// Incremented by every mutation, so an owner can tell whether anything changed.
    private(set) var changeCount = 0
    /// Unique in the process, so a remembered cache hit can name this document without keeping it alive.
    let serial = ProcessSerial.next()

    /// An empty document.
    init() {}

    func noteChange() { changeCount &+= 1 }

    /// Records that `section` exists (sections appear in first-write order, as in MSAL Python).
    func touch(_ section: CacheSection) {
        for slot in sectionOrder { if case .known(section) = slot { return } }
        sectionOrder.append(.known(section))
    }

    func scopeSet(forTarget target: String) -> ScopeSet {
        if let shared = scopeSets[target] { return shared }
        let made = ScopeSet(target: target)
        if scopeSets.count < 10_000 { scopeSets[target] = made }
        return made
    }

    // MARK: Queries

    /// The access token for an account, app, tenant and scopes, or nil.
    ///
    /// Matches `home_account_id`, `client_id` and `realm` ignoring case, `environment` against any of
    /// `environments` ignoring case, requires `scopes` ⊆ `target` (ignoring case) and a `token_type` of
    /// Bearer or none; with `assertionHash`, only on-behalf-of tokens obtained with that incoming assertion; only
    /// tokens an application with the client capabilities of `capabilities` (a stored marker; nil: none) may use
    /// (``usableWithCapabilities(_:_:)``). When several match, returns the one expiring last, preferring tokens
    /// requested with exactly those capabilities. Expiry is the caller's check.
    func findAccessToken(homeAccountId: String, environments: [String], clientId: String, realm: String, scopes: ScopeSet,
                         assertionHash: String? = nil, capabilities: String? = nil) -> AccessTokenEntry?
    {
        let bucket = accessTokens.bucket(
            home: CacheStrings.lower(homeAccountId), client: CacheStrings.lower(clientId), realm: CacheStrings.lower(realm))
        if bucket.isEmpty { return nil }
        var best = -1
        var bestExpiry = Int64.min
        var bestExact = false
        for index in bucket.indices {
            guard bucket[index].isBearer, scopes.isSubset(of: bucket[index].scopes),
                  Self.environment(bucket[index].environmentKey, in: environments) else { continue }
            if let assertionHash,
               bucket[index].extraFields[Self.userAssertionHashField] != .string(assertionHash) { continue }
            guard Self.usableWithCapabilities(bucket[index], capabilities) else { continue }
            // A token requested with the application's own capabilities ranks before one requested without.
            let exact = capabilities == nil || Self.matchesCapabilities(bucket[index], capabilities)
            let expiry = bucket[index].expiresOnValue.seconds
            if best < 0 || (exact && !bestExact) || (exact == bestExact && expiry > bestExpiry) {
                best = index; bestExpiry = expiry; bestExact = exact
            }
        }
        return best < 0 ? nil : bucket[best]
    }

    /// Whether the lowercased `environment` is one of `environments` (any case).
    @inline(__always)
    static func environment(_ lowered: String, in environments: [String]) -> Bool {
        for candidate in environments where CacheStrings.equalsLowercased(candidate, lowered) { return true }
        return false
    }

    /// The account's refresh tokens issued to `clientId`, newest `last_modification_time` first.
    func refreshTokens(homeAccountId: String, environments: [String], clientId: String) -> [RefreshTokenEntry] {
        let client = CacheStrings.lower(clientId)
        return newestFirst(refreshTokenEntries.entries(homeKey: CacheStrings.lower(homeAccountId)).filter {
            $0.clientKey == client && Self.environment($0.environmentKey, in: environments)
        })
    }

    /// The account's family refresh tokens (`family_id` == `familyId`, any client), newest first.
    func familyRefreshTokens(homeAccountId: String, environments: [String], familyId: String) -> [RefreshTokenEntry] {
        newestFirst(refreshTokenEntries.entries(homeKey: CacheStrings.lower(homeAccountId)).filter {
            $0.familyId == familyId && Self.environment($0.environmentKey, in: environments)
        })
    }

    private func newestFirst(_ tokens: [RefreshTokenEntry]) -> [RefreshTokenEntry] {
        tokens.sorted { ($0.lastModificationTimeValue?.seconds ?? 0) > ($1.lastModificationTimeValue?.seconds ?? 0) }
    }

    /// The app metadata of `clientId` in one of `environments`.
    func appMetadata(environments: [String], clientId: String) -> AppMetadataEntry? {
        for environment in environments {
            if let exact = appMetadataEntries[AppMetadataEntry.pythonKey(environment: environment, clientId: clientId)] {
                return exact
            }
        }
        let client = CacheStrings.lower(clientId)
        return appMetadataEntries.values.first { $0.clientKey == client && Self.environment($0.environmentKey, in: environments) }
    }

    /// The ID token of an account in one tenant for one app.
    func idToken(homeAccountId: String, environments: [String], realm: String, clientId: String) -> IdTokenEntry? {
        let realmKey = CacheStrings.lower(realm)
        let client = CacheStrings.lower(clientId)
        return idTokenEntries.entries(homeKey: CacheStrings.lower(homeAccountId)).first {
            $0.realmKey == realmKey && $0.clientKey == client && Self.environment($0.environmentKey, in: environments)
        }
    }

    /// The ID tokens of an account (every tenant) for one app.
    func idTokens(homeAccountId: String, environments: [String], clientId: String) -> [IdTokenEntry] {
        let client = CacheStrings.lower(clientId)
        return idTokenEntries.entries(homeKey: CacheStrings.lower(homeAccountId)).filter {
            $0.clientKey == client && Self.environment($0.environmentKey, in: environments)
        }
    }

    /// The accounts in `environments` (any case), or every account when nil.
    func accounts(environments: [String]?) -> [AccountEntry] {
        let all = Array(accountEntries.all)
        guard let environments else { return all }
        return all.filter { Self.environment($0.environmentKey, in: environments) }
    }

    /// The account entries (one per tenant and environment) of one home account.
    func accounts(homeAccountId: String) -> [AccountEntry] {
        accountEntries.entries(homeKey: CacheStrings.lower(homeAccountId))
    }

    /// Where a home account came from (`account_source` of its entries in `environments`): `"broker"` when any entry
    /// says a broker signed it in, else the first source recorded; nil when no entry records one.
    func accountSource(homeAccountId: String, environments: [String]) -> String? {
        let sources = accounts(homeAccountId: homeAccountId)
            .filter { Self.environment($0.environmentKey, in: environments) }
            .compactMap(\.accountSource)
        return sources.contains("broker") ? "broker" : sources.first
    }

    /// The number of access tokens.
    var accessTokenCount: Int { accessTokens.count }
}
