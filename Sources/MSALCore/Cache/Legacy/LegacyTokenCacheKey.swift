package import Foundation

/// The keychain attributes that name an item of ADAL's legacy cache (`MSIDLegacyTokenCacheKey.m`):
/// - service `MSOpenTech.ADAL.1|<authority>|<resource>|<client id>`, each part trimmed, lower-cased and base64url
///   encoded; a missing resource is the fixed `CC3513A0-0E69-4B4D-97FC-DFB6C91EE132` (`serviceWithAuthority:…`,
///   `getAttributeName:`);
/// - account: the user id, trimmed and lower-cased, base64url encoded on iOS and plain on macOS
///   (`adalAccountWithUserId:`);
/// - generic `MSOpenTech.ADAL.1`; no type.
package struct LegacyTokenCacheKey: Sendable, Hashable {
    package var authority: String
    package var resource: String?
    package var clientId: String
    /// The user id (trimmed and lower-cased).
    package var userId: String

    static let library = "MSOpenTech.ADAL.1"
    static let nilKey = "CC3513A0-0E69-4B4D-97FC-DFB6C91EE132"
    /// The generic attribute of every legacy item.
    package static let generic = Data(library.utf8)

    package init(authority: String, resource: String?, clientId: String, userId: String) {
        self.authority = authority
        self.resource = resource
        self.clientId = clientId
        self.userId = LegacyUserIdentifier.normalized(userId)
    }

    /// `kSecAttrService`.
    package var service: String {
        func part(_ text: String?) -> String { LegacyUserIdentifier.normalized(text) }
        let resourcePart = part(resource).isEmpty ? Self.nilKey : Base64URL.encode(Data(part(resource).utf8))
        return [Self.library, Base64URL.encode(Data(part(authority).utf8)), resourcePart,
                Base64URL.encode(Data(part(clientId).utf8))].joined(separator: "|")
    }

    /// `kSecAttrAccount` on iOS (`forIOS`) or macOS.
    package func account(forIOS: Bool) -> String {
        forIOS ? Base64URL.encode(Data(userId.utf8)) : userId
    }

    /// The authority, resource and client id a service attribute names; nil for one that is not ADAL's (another
    /// prefix, a wrong number of parts, a part that is not base64url text).
    package static func components(ofService service: String) -> (authority: String, resource: String?, clientId: String)? {
        let parts = service.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4 || parts.count == 5, parts[0] == library else { return nil }
        func decoded(_ part: Substring) -> String? {
            Base64URL.decode(part).flatMap { String(data: $0, encoding: .utf8) }
        }
        guard let authority = decoded(parts[1]), let clientId = decoded(parts[3]) else { return nil }
        let resource = parts[2] == nilKey ? nil : decoded(parts[2])
        guard parts[2] == nilKey || resource != nil else { return nil }
        return (authority, resource, clientId)
    }

    /// The user id an account attribute names.
    package static func userId(ofAccount account: String, forIOS: Bool) -> String {
        guard forIOS else { return account }
        return Base64URL.decode(account).flatMap { String(data: $0, encoding: .utf8) } ?? account
    }

    /// The client id of a family's refresh token in the legacy cache (`MSIDCacheKey familyClientId:`).
    package static func familyClientId(_ familyId: String) -> String { familyPrefix + familyId }

    /// The family whose refresh token is kept under `clientId` (`foci-<family>`, in any case); nil for an
    /// application's own client id.
    package static func familyId(ofClientId clientId: String) -> String? {
        clientId.lowercased().hasPrefix(familyPrefix) ? String(clientId.dropFirst(familyPrefix.count)) : nil
    }

    private static let familyPrefix = "foci-"
}
