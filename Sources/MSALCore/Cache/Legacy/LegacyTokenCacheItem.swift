package import Foundation

/// One item of ADAL's legacy token cache (`ADTokenCacheStoreItem`), as MSAL's common core reads and writes it
/// (`MSIDLegacyTokenCacheItem.m`, `initWithCoder:` and `encodeWithCoder:`): the fields an archive carries under
/// ADAL's keys, the id token inside an `ADUserInformation` (`MSIDUserInformation.m`, `rawIdToken`).
package struct LegacyTokenCacheItem: Sendable, Equatable {
    /// `authority`: `https://<host>/<tenant>`.
    package var authority: String?
    package var clientId: String?
    /// `resource`; nil for a multi-resource refresh token.
    package var resource: String?
    package var accessToken: String?
    package var refreshToken: String?
    /// `userInformation.rawIdToken`.
    package var idToken: String?
    /// `accessTokenType` (`Bearer` when written).
    package var accessTokenType: String?
    /// `expiresOn` and `cachedAt`, seconds since 2001-01-01 UTC.
    package var expiresOn: Double?
    package var cachedAt: Double?
    package var familyId: String?
    /// `homeAccountId`, written by MSAL (ADAL's own items have none).
    package var homeAccountId: String?
    package var enrollmentId: String?
    package var applicationIdentifier: String?
    /// `additionalServer`, kept as archived.
    package var additionalServer: [ArchivedEntry] = []

    /// The class names an item is archived under: ADAL's, which MSAL's serializer maps to its own class.
    static let className = "ADTokenCacheStoreItem"
    static let userInformationClass = "ADUserInformation"
    /// The refresh token an old ADAL wrote in place of a removed one.
    static let tombstone = "<tombstone>"

    package init(authority: String?, clientId: String?, resource: String?, refreshToken: String?, idToken: String?,
                 familyId: String? = nil, homeAccountId: String? = nil) {
        self.authority = authority
        self.clientId = clientId
        self.resource = resource
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.familyId = familyId
        self.homeAccountId = homeAccountId
    }

    /// The item archived in `data` (a keychain item's value).
    package static func decode(_ data: Data) throws(BinaryPropertyList.Failure) -> LegacyTokenCacheItem {
        guard let object = try KeyedArchive.decode(data).objectValue else {
            throw BinaryPropertyList.Failure(reason: "the archive's root is not a token cache item")
        }
        return try LegacyTokenCacheItem(archived: object)
    }

    /// The item of an archived object (the root of a keychain item, or a value of the macOS serialized cache).
    package init(archived object: ArchivedObject) throws(BinaryPropertyList.Failure) {
        guard object.className == Self.className || object.className == "MSIDLegacyTokenCacheItem" else {
            throw BinaryPropertyList.Failure(reason: "the archived object is not a token cache item")
        }
        func text(_ key: String) throws(BinaryPropertyList.Failure) -> String? {
            switch object.fields[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw BinaryPropertyList.Failure(reason: "the item's \(key) is not a string")
            }
        }
        func date(_ key: String) throws(BinaryPropertyList.Failure) -> Double? {
            switch object.fields[key] {
            case nil, .null?: return nil
            case .date(let seconds)?: return seconds.isFinite ? seconds : nil
            default: throw BinaryPropertyList.Failure(reason: "the item's \(key) is not a date")
            }
        }
        authority = try text("authority")
        clientId = try text("clientId")
        resource = try text("resource")
        accessToken = try text("accessToken")
        refreshToken = try text("refreshToken")
        accessTokenType = try text("accessTokenType")
        expiresOn = try date("expiresOn")
        cachedAt = try date("cachedAt")
        familyId = try text("familyId")
        homeAccountId = try text("homeAccountId")
        enrollmentId = try text("enrollmentId")
        applicationIdentifier = try text("applicationIdentifier")
        switch object.fields["userInformation"] {
        case nil, .null?: idToken = nil
        case .object(let information)? where information.className == Self.userInformationClass
            || information.className == "MSIDUserInformation":
            idToken = information.string("rawIdToken")
        default: throw BinaryPropertyList.Failure(reason: "the item's user information is not ADAL's")
        }
        additionalServer = object.fields["additionalServer"]?.entries ?? []
    }

    /// The item as MSAL's common core archives it (`encodeWithCoder:`). `forIOS` adds what ADAL 1.x on iOS reads in
    /// the user information (`allClaims`, `userId`, `userIdDisplayable`; `MSIDUserInformation.m`, TARGET_OS_IPHONE).
    package func archived(forIOS: Bool) -> ArchivedObject {
        var fields: [String: ArchivedValue] = [:]
        func put(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
        put("authority", authority)
        put("accessToken", accessToken)
        put("refreshToken", refreshToken)
        var information: [String: ArchivedValue] = [:]
        if let idToken {
            information["rawIdToken"] = .string(idToken)
            if forIOS, let claims = claims {
                information["allClaims"] = Self.archived(claims)
                if let user = LegacyUserIdentifier(writing: claims) {
                    information["userId"] = .string(user.userId)
                    information["userIdDisplayable"] = .bool(user.displayable)
                }
            }
        }
        fields["userInformation"] = .object(ArchivedObject(className: Self.userInformationClass, fields: information))
        put("accessTokenType", (accessTokenType ?? "").isEmpty ? "Bearer" : accessTokenType)
        put("clientId", clientId)
        put("resource", resource)
        if let expiresOn { fields["expiresOn"] = .date(expiresOn) }
        if let cachedAt { fields["cachedAt"] = .date(cachedAt) }
        put("familyId", familyId)
        fields["additionalClient"] = .dictionary([], mutable: true)
        fields["additionalServer"] = .dictionary(additionalServer, mutable: true)
        put("homeAccountId", homeAccountId)
        put("enrollmentId", enrollmentId)
        put("applicationIdentifier", applicationIdentifier)
        return ArchivedObject(className: Self.className, fields: fields)
    }

    /// The item as a keychain item's value.
    package func encode(forIOS: Bool) -> Data {
        KeyedArchive.encode(.object(archived(forIOS: forIOS)))
    }

    /// The host of the authority (lower-cased, without a port: the unified cache's environment).
    package var environment: String? {
        guard let authority, let host = URLComponents(string: authority)?.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        return host
    }

    /// The tenant: the authority's first path segment.
    package var realm: String? {
        guard let authority, let url = URLComponents(string: authority) else { return nil }
        return url.path.split(separator: "/").first.map(String.init)
    }

    /// Whether the item holds a refresh token (not a tombstone an old ADAL left).
    package var hasRefreshToken: Bool {
        guard let refreshToken, !refreshToken.isEmpty else { return false }
        return refreshToken != Self.tombstone
    }

    /// The id token's claims; nil when there is none or it is not a JWT.
    package var claims: [String: JSONValue]? {
        guard let idToken else { return nil }
        return try? IdToken(raw: idToken).claims
    }

    static func archived(_ json: JSONValue) -> ArchivedValue {
        switch json {
        case .string(let text): return .string(text)
        case .number(let number): return number == number.rounded() && abs(number) < 1e15 ? .integer(Int64(number)) : .real(number)
        case .numberText(let text): return Int64(text).map(ArchivedValue.integer) ?? .real(Double(text) ?? 0)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .array(let elements): return .array(elements.map(archived))
        case .object(let object):
            return .dictionary(object.sorted { $0.key < $1.key }.map { ArchivedEntry(.string($0.key), archived($0.value)) },
                               mutable: false)
        }
    }

    static func archived(_ claims: [String: JSONValue]) -> ArchivedValue { archived(.object(claims)) }
}

/// ADAL's user id of an id token (`MSIDAADV1IdTokenClaims.m`, `initDerivedProperties`): the first of `upn`,
/// `email` (displayable), `sub`, `oid` (not displayable), `unique_name` (displayable), `altsecid` (not), trimmed and
/// lower-cased (`MSIDHelpers normalizeUserId:`).
package struct LegacyUserIdentifier: Sendable, Equatable {
    package var userId: String
    package var displayable: Bool

    package init?(claims: [String: JSONValue]) {
        let order: [(String, Bool)] = [("upn", true), ("email", true), ("sub", false), ("oid", false),
                                       ("unique_name", true), ("altsecid", false)]
        for (claim, displayable) in order {
            let value = Self.normalized(claims[claim]?.stringValue)
            if !value.isEmpty {
                userId = value
                self.displayable = displayable
                return
            }
        }
        return nil
    }

    /// The user id an item written from `claims` is keyed by: ADAL's displayable one (`upn`, `email`), else the
    /// version 2 id token's `preferred_username`, else ADAL's other choices.
    package init?(writing claims: [String: JSONValue]) {
        if let adal = LegacyUserIdentifier(claims: claims), adal.displayable {
            self = adal
        } else if let preferred = claims["preferred_username"]?.stringValue, !Self.normalized(preferred).isEmpty {
            self.userId = Self.normalized(preferred)
            self.displayable = true
        } else if let adal = LegacyUserIdentifier(claims: claims) {
            self = adal
        } else {
            return nil
        }
    }

    /// A user id as ADAL keys it: trimmed, lower-cased.
    package static func normalized(_ userId: String?) -> String {
        (userId ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
