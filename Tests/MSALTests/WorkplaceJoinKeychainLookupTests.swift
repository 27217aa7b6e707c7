import Crypto
import Foundation
import Testing
@testable import MSALCore

/// The device registration read from the keychain as MSAL for iOS/macOS's common core reads it
/// (`IdentityCore/src/workplacejoin/MSIDWorkPlaceJoinUtilBase.m:197-508`): each fixture is an item placed under the
/// exact query MSAL makes for it (tags with the identifier's terminating NUL, the groups, the data-protection flag
/// on macOS), so a query that differs from MSAL's finds nothing.
@Suite("Workplace join in the keychain")
struct WorkplaceJoinKeychainLookupTests {
    /// A keychain holding items under queries, recording every query made.
    final class FixtureKeychain: WorkplaceJoinKeychain, @unchecked Sendable {
        var items: [(WorkplaceJoinKeychainQuery, WorkplaceJoinKeychainItem)] = []
        var asked: [WorkplaceJoinKeychainQuery] = []
        let lock = NSLock()

        func place(_ query: WorkplaceJoinKeychainQuery, _ item: WorkplaceJoinKeychainItem) { items.append((query, item)) }

        func item(matching query: WorkplaceJoinKeychainQuery) throws -> WorkplaceJoinKeychainItem? {
            lock.withLock {
                asked.append(query)
                return items.first { $0.0 == query }?.1
            }
        }
    }

    static let team = "UBF8T346G9"
    static let legacyGroup = "UBF8T346G9.com.microsoft.workplacejoin"
    static let defaultGroup = "UBF8T346G9.com.microsoft.workplacejoin.v2"
    /// `kMSIDPrivateKeyIdentifier` (`MSIDWorkPlaceJoinConstants.m:26`) as its UTF-8 bytes, its `\0` included
    /// (`MSIDWorkPlaceJoinUtilTests.m:703` writes the tag with the literal's whole length).
    static let identifierBytes = Array("com.microsoft.workplacejoin.privatekey".utf8) + [0]

    /// Places a registration: the key (tag, type, group, data protection), its certificate (by the key's label) and,
    /// for a default registration, its metadata item.
    static func place(in keychain: FixtureKeychain, tag: [UInt8], type: WorkplaceJoinKeyType, keyGroup: String?,
                      keyDataProtection: Bool = false, certificateGroup: String?, certificateDataProtection: Bool = false,
                      subject: String, label: UInt8) -> P256.Signing.PrivateKey {
        let key = P256.Signing.PrivateKey()
        let signing = try! MSALP256DeviceRegistrationKey(rawRepresentation: key.rawRepresentation)
        keychain.place(.privateKey(tag: Data(tag), type: type, accessGroup: keyGroup, dataProtection: keyDataProtection),
                       WorkplaceJoinKeychainItem(key: signing, applicationLabel: Data([label, 1, 2])))
        keychain.place(.certificate(publicKeyHash: Data([label, 1, 2]), accessGroup: certificateGroup,
                                    dataProtection: certificateDataProtection),
                       WorkplaceJoinKeychainItem(certificate: Data("cert-\(subject)".utf8), certificateSubject: subject))
        return key
    }

    static func placeLegacy(in keychain: FixtureKeychain, macOS: Bool, tenant: String) {
        let group = macOS ? nil : legacyGroup
        _ = place(in: keychain, tag: identifierBytes, type: .rsa, keyGroup: group, certificateGroup: group,
                  subject: "legacy-device", label: 1)
        keychain.place(.genericPassword(account: "com.microsoft.workplacejoin.tenantId", service: nil, accessGroup: group,
                                        dataProtection: false, returnData: false), WorkplaceJoinKeychainItem(service: tenant))
        keychain.place(.genericPassword(account: "com.microsoft.workplacejoin.registeredUserPrincipalName", service: nil,
                                        accessGroup: group, dataProtection: false, returnData: false),
                       WorkplaceJoinKeychainItem(service: "legacy@contoso.com"))
    }

    static func placeDefaultEC(in keychain: FixtureKeychain, macOS: Bool, tenant: String, primary: Bool) {
        _ = place(in: keychain, tag: identifierBytes + Array("#\(tenant)-EC".utf8), type: .ec256, keyGroup: defaultGroup,
                  keyDataProtection: macOS, certificateGroup: defaultGroup, certificateDataProtection: macOS,
                  subject: "subject-ignored", label: 2)
        let metadata = try! JSONSerialization.data(withJSONObject: [
            "com.microsoft.workplacejoin.thumbprint": "ABCDEF", "com.microsoft.workplacejoin.certificateCommonNameIdentifier": "ec-device"])
        keychain.place(.genericPassword(account: nil, service: tenant, accessGroup: defaultGroup, dataProtection: false, returnData: true),
                       WorkplaceJoinKeychainItem(label: "adele@contoso.com", itemDescription: "login.microsoftonline.com", data: metadata))
        if primary {
            keychain.place(.genericPassword(account: "ecc_default_tenant", service: "ecc_default_tenant", accessGroup: defaultGroup,
                                            dataProtection: macOS, returnData: false), WorkplaceJoinKeychainItem(itemDescription: tenant))
        }
    }

    func lookup(_ platform: WorkplaceJoinKeychainLookup.Platform) -> WorkplaceJoinKeychainLookup {
        WorkplaceJoinKeychainLookup(platform: platform, teamId: Self.team)
    }

    @Test("A legacy registration, primary: its certificate's subject, tenant and user items", arguments: [true, false])
    func legacy(macOS: Bool) throws {
        let keychain = FixtureKeychain()
        Self.placeLegacy(in: keychain, macOS: macOS, tenant: "tenant-a")
        let found = try #require(try lookup(macOS ? .macOS : .iOS).registration(tenantId: nil, in: keychain))
        #expect(found.deviceId == "legacy-device" && found.tenantId == "tenant-a" && found.userPrincipalName == "legacy@contoso.com")
        #expect(found.certificate == Data("cert-legacy-device".utf8))
        // The first query is MSAL's v1 key query: on macOS the login keychain, no group (`:291-295`).
        #expect(keychain.asked.first == .privateKey(tag: Data(Self.identifierBytes), type: .rsa,
                                                   accessGroup: macOS ? nil : Self.legacyGroup, dataProtection: false))
        // A named tenant that is the legacy registration's.
        #expect(try lookup(macOS ? .macOS : .iOS).registration(tenantId: "tenant-a", in: keychain)?.deviceId == "legacy-device")
    }

    @Test("The default ECC registration of a named tenant, over a legacy one of another tenant", arguments: [true, false])
    func defaultECOverLegacy(macOS: Bool) throws {
        let keychain = FixtureKeychain()
        Self.placeLegacy(in: keychain, macOS: macOS, tenant: "tenant-a")
        Self.placeDefaultEC(in: keychain, macOS: macOS, tenant: "tenant-b", primary: false)
        let found = try #require(try lookup(macOS ? .macOS : .iOS).registration(tenantId: "tenant-b", in: keychain))
        #expect(found.deviceId == "ec-device" && found.tenantId == "tenant-b")
        #expect(found.userPrincipalName == "adele@contoso.com" && found.cloudHost == "login.microsoftonline.com")
        #expect(found.key.algorithm == "ES256")
        // A tenant with neither: the legacy registration of the other tenant is the last resort (`:400-403`).
        #expect(try lookup(macOS ? .macOS : .iOS).registration(tenantId: "tenant-c", in: keychain)?.deviceId == "legacy-device")
    }

    @Test("The primary ECC registration when no tenant is named; none without the primary-tenant item", arguments: [true, false])
    func primary(macOS: Bool) throws {
        let keychain = FixtureKeychain()
        Self.placeDefaultEC(in: keychain, macOS: macOS, tenant: "tenant-b", primary: false)
        #expect(try lookup(macOS ? .macOS : .iOS).registration(tenantId: nil, in: keychain) == nil)
        Self.placeDefaultEC(in: keychain, macOS: macOS, tenant: "tenant-b", primary: true)
        #expect(try lookup(macOS ? .macOS : .iOS).registration(tenantId: nil, in: keychain)?.tenantId == "tenant-b")
        #expect(try lookup(macOS ? .macOS : .iOS).registration(tenantId: "   ", in: keychain)?.tenantId == "tenant-b")
    }

    @Test("A default RSA registration is read on iOS only (`:328`: macOS default registrations are ECC)")
    func defaultRSAOnIOSOnly() throws {
        let keychain = FixtureKeychain()
        _ = Self.place(in: keychain, tag: Self.identifierBytes + Array("#tenant-r".utf8), type: .rsa, keyGroup: Self.defaultGroup,
                       certificateGroup: Self.defaultGroup, subject: "rsa-device", label: 3)
        #expect(try lookup(.iOS).registration(tenantId: "tenant-r", in: keychain)?.deviceId == "rsa-device")
        #expect(try lookup(.macOS).registration(tenantId: "tenant-r", in: keychain) == nil)
    }

    @Test("A key without its certificate, or a tag without the NUL, is no registration")
    func incomplete() throws {
        let keychain = FixtureKeychain()
        keychain.place(.privateKey(tag: Data(Self.identifierBytes), type: .rsa, accessGroup: Self.legacyGroup, dataProtection: false),
                       WorkplaceJoinKeychainItem(key: try MSALP256DeviceRegistrationKey(rawRepresentation: P256.Signing.PrivateKey().rawRepresentation),
                                                 applicationLabel: Data([9])))
        #expect(try lookup(.iOS).registration(tenantId: nil, in: keychain) == nil)
        let withoutNul = FixtureKeychain()
        _ = Self.place(in: withoutNul, tag: Array("com.microsoft.workplacejoin.privatekey".utf8), type: .rsa, keyGroup: Self.legacyGroup,
                       certificateGroup: Self.legacyGroup, subject: "x", label: 4)
        #expect(try lookup(.iOS).registration(tenantId: nil, in: withoutNul) == nil)
    }

    @Test("The registration found signs the device's JWT with its own key")
    func signsWithTheKeychainKey() throws {
        let keychain = FixtureKeychain()
        let key = Self.place(in: keychain, tag: Self.identifierBytes + Array("#tenant-b-EC".utf8), type: .ec256,
                             keyGroup: Self.defaultGroup, certificateGroup: Self.defaultGroup, subject: "d", label: 5)
        let found = try #require(try lookup(.iOS).registration(tenantId: "tenant-b", in: keychain))
        let jwt = try found.signedJWT(["aud": "https://login.microsoftonline.com/common/oauth2/v2.0/token", "nonce": "n"])
        let parts = jwt.split(separator: ".").map(String.init)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }
}
