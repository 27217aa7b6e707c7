import Foundation
import MSAL
import Security
import Testing

/// The device registration that Authenticator or Company Portal placed in the keychain, read through Security as
/// MSAL for iOS/macOS reads it: a default ECC registration (its key, its certificate by public key hash, the
/// primary-tenant item and the metadata item, each in the keychain MSAL queries on this platform), signing with the
/// keychain key as MSAL signs.
extension AppleSurfaceTests {
    final class SigningCalls: @unchecked Sendable {
        private let lock = NSLock()
        private var calls: [(SecKeyAlgorithm, Data)] = []
        func add(_ algorithm: SecKeyAlgorithm, _ data: Data) { lock.withLock { calls.append((algorithm, data)) } }
        var all: [(SecKeyAlgorithm, Data)] { lock.withLock { calls } }
    }

    static let v2Group = "\(AppleFixture.team).com.microsoft.workplacejoin.v2"
    static let registrationTenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"

    /// The default ECC registration of `registrationTenant`, primary, placed as MSAL's tests place one
    /// (`MSIDWorkPlaceJoinUtilTests.m:636-703, 796-858`).
    static func placeDefaultRegistration(calls: SigningCalls) {
        let macOS = MSALKeychainTokenCacheStorage.dataProtectionByDefault
        let keychain = SurfaceKeychain.shared
        var tag = Data("com.microsoft.workplacejoin.privatekey".utf8)
        tag.append(0)
        tag.append(contentsOf: Array("#\(registrationTenant)-EC".utf8))
        let label = Data([0xA1, 0xB2, 0xC3])
        let key = SecKey(surfaceAlgorithms: [.ecdsaSignatureDigestX962SHA256, .ecdsaSignatureMessageX962SHA256]) { algorithm, data in
            calls.add(algorithm, data)
            return Data([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01])
        }
        keychain.surfacePlace(kSecClassKey, attributes: [
            kSecAttrApplicationTag as String: tag, kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom as String,
            kSecAttrKeySizeInBits as String: NSNumber(value: 256), kSecAttrAccessGroup as String: v2Group,
            kSecAttrApplicationLabel as String: label,
        ], reference: key)
        keychain.surfacePlace(kSecClassCertificate, attributes: [
            kSecAttrPublicKeyHash as String: label, kSecAttrAccessGroup as String: v2Group,
        ], reference: SecCertificate(surfaceData: Data("device-certificate-der".utf8), subjectSummary: "ec-device"))
        keychain.surfacePlacePassword(attributes: [
            kSecAttrAccount as String: "ecc_default_tenant", kSecAttrService as String: "ecc_default_tenant",
            kSecAttrAccessGroup as String: v2Group, kSecAttrDescription as String: registrationTenant,
        ])
        // MSAL reads the metadata without the data-protection flag, on macOS too (`MSIDWorkPlaceJoinUtilBase.m:446-508`).
        keychain.surfacePlacePassword(attributes: [
            kSecAttrService as String: registrationTenant, kSecAttrAccessGroup as String: v2Group,
            kSecAttrLabel as String: "adele@contoso.onmicrosoft.com", kSecAttrDescription as String: "login.microsoftonline.com",
        ], data: try! JSONSerialization.data(withJSONObject: [
            "com.microsoft.workplacejoin.thumbprint": "0A1B2C",
            "com.microsoft.workplacejoin.certificateCommonNameIdentifier": "5c0ffee0-1111-4222-8333-444455556666",
        ]), dataProtection: !macOS)
    }

    @Test func theDeviceRegistrationIsReadFromTheKeychainAsMSALReadsIt() throws {
        SurfaceKeychain.shared.reset(entitledAccessGroups: ["\(AppleFixture.team).com.example.app", Self.v2Group])
        let calls = SigningCalls()
        Self.placeDefaultRegistration(calls: calls)
        // The team id read from the app's default access group, as the keychain cache reads it.
        let registration = try #require(try MSALKeychainWorkplaceJoinStore().registration(tenantId: nil))
        #expect(registration.deviceId == "5c0ffee0-1111-4222-8333-444455556666")
        #expect(registration.tenantId == Self.registrationTenant)
        #expect(registration.userPrincipalName == "adele@contoso.onmicrosoft.com")
        #expect(registration.cloudHost == "login.microsoftonline.com")
        #expect(registration.certificate == Data("device-certificate-der".utf8))
        #expect(registration.key.algorithm == "ES256")
        // Signed in the keychain with the message form MSAL uses; its DER signature returned as it is.
        let signature = try registration.key.signature(for: Data("header.claims".utf8))
        #expect(signature.first == 0x30)
        #expect(calls.all.count == 1 && calls.all.first?.0 == .ecdsaSignatureMessageX962SHA256)
        #expect(calls.all.first?.1 == Data("header.claims".utf8))
        // The same registration by its tenant; another tenant has none.
        #expect(try MSALKeychainWorkplaceJoinStore(teamId: AppleFixture.team).registration(tenantId: Self.registrationTenant) != nil)
        #expect(try MSALKeychainWorkplaceJoinStore(teamId: AppleFixture.team).registration(tenantId: "other-tenant") == nil)
    }

    @Test func anAppWithoutTheWorkplaceJoinGroupSeesNoRegistration() throws {
        SurfaceKeychain.shared.reset(entitledAccessGroups: ["\(AppleFixture.team).com.example.app"])
        Self.placeDefaultRegistration(calls: SigningCalls())
        #expect(try MSALKeychainWorkplaceJoinStore().registration(tenantId: nil) == nil)
        SurfaceKeychain.shared.reset(entitledAccessGroups: [])
        #expect(try MSALKeychainWorkplaceJoinStore().registration(tenantId: nil) == nil)
    }
}
