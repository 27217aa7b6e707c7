#if canImport(Security)
import Foundation
import Security

/// The device's registration (workplace join) where Microsoft Authenticator and Company Portal keep it and MSAL for
/// iOS/macOS reads it: the device key and certificate, and their metadata, in the keychain groups
/// `<team id>.com.microsoft.workplacejoin` (legacy registrations; on macOS the login keychain) and
/// `<team id>.com.microsoft.workplacejoin.v2` (default registrations; on macOS the data-protection keychain). The
/// default ``MSALPlatformServices/workplaceJoin`` on Apple platforms: PKeyAuth answers, the device-token grant and
/// ``MSALPublicClientApplication/getWPJMetaDataDevice(with:forTenantId:completionBlock:)`` use it.
///
/// The app reads these groups only with them in its Keychain Sharing capability (keychain-access-groups
/// entitlement), as an app using MSAL for iOS/macOS does; without them the device reads as not registered. The
/// lookup's order and queries are MSAL's (``WorkplaceJoinKeychainLookup``). Keys sign in the keychain
/// (`SecKeyCreateSignature`, as MSAL signs: PKCS #1 v1.5 with SHA-256 for RSA, X9.62 DER ECDSA with SHA-256 for P-256)
/// and never leave it.
public struct MSALKeychainWorkplaceJoinStore: MSALWorkplaceJoinStore {
    /// The team id of the groups; nil reads the app's own, as MSAL for iOS/macOS does.
    public let teamId: String?

    /// A store of the registrations in the app's (or `teamId`'s) workplace-join keychain groups.
    public init(teamId: String? = nil) {
        self.teamId = teamId
    }

    public func registration(tenantId: String?) throws -> MSALWorkplaceJoinRegistration? {
        #if canImport(AppKit) && !canImport(UIKit)
        let platform = WorkplaceJoinKeychainLookup.Platform.macOS
        #else
        let platform = WorkplaceJoinKeychainLookup.Platform.iOS
        #endif
        let team: String
        do {
            team = try teamId ?? MSALKeychainTokenCacheStorage.teamId(dataProtection: platform == .macOS,
                                                                     group: "com.microsoft.workplacejoin.v2")
        } catch {
            return nil   // the app cannot read the keychain's groups: as MSAL, the device reads as not registered
        }
        return try WorkplaceJoinKeychainLookup(platform: platform, teamId: team)
            .registration(tenantId: tenantId, in: SecItemWorkplaceJoinKeychain())
    }
}

/// The lookup's queries as `SecItemCopyMatching` dictionaries, with the keys and values MSAL passes.
struct SecItemWorkplaceJoinKeychain: WorkplaceJoinKeychain {
    func item(matching query: WorkplaceJoinKeychainQuery) throws -> WorkplaceJoinKeychainItem? {
        var fields: [String: Any] = [:]
        func common(_ group: String?, _ dataProtection: Bool) {
            if let group { fields[kSecAttrAccessGroup as String] = group }
            if dataProtection { fields[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue }
        }
        switch query {
        case .privateKey(let tag, let type, let group, let dataProtection):
            fields[kSecClass as String] = kSecClassKey
            fields[kSecAttrApplicationTag as String] = tag
            switch type {
            case .rsa:
                fields[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA
            case .ec256:
                fields[kSecAttrKeyType as String] = kSecAttrKeyTypeECSECPrimeRandom
                fields[kSecAttrKeySizeInBits as String] = NSNumber(value: 256)
            }
            fields[kSecReturnAttributes as String] = kCFBooleanTrue
            fields[kSecReturnRef as String] = kCFBooleanTrue
            common(group, dataProtection)
            guard let attributes = try copy(fields) as? [String: Any],
                  let label = attributes[kSecAttrApplicationLabel as String] as? Data,
                  let reference = attributes[kSecValueRef as String] else { return nil }
            let key = reference as! SecKey   // a key query's reference is a SecKey
            guard let signing = KeychainDeviceKey(key) else { return nil }
            return WorkplaceJoinKeychainItem(key: signing, applicationLabel: label)
        case .certificate(let hash, let group, let dataProtection):
            common(group, dataProtection)
            fields[kSecClass as String] = kSecClassCertificate
            fields[kSecAttrPublicKeyHash as String] = hash
            fields[kSecReturnRef as String] = kCFBooleanTrue
            guard let reference = try copy(fields) else { return nil }
            let certificate = reference as! SecCertificate   // a certificate query's reference is a SecCertificate
            return WorkplaceJoinKeychainItem(certificate: SecCertificateCopyData(certificate) as Data,
                                             certificateSubject: SecCertificateCopySubjectSummary(certificate).map { $0 as String })
        case .genericPassword(let account, let service, let group, let dataProtection, let returnData):
            fields[kSecClass as String] = kSecClassGenericPassword
            if let account { fields[kSecAttrAccount as String] = account }
            if let service { fields[kSecAttrService as String] = service }
            fields[kSecReturnAttributes as String] = kCFBooleanTrue
            if returnData { fields[kSecReturnData as String] = kCFBooleanTrue }
            common(group, dataProtection)
            guard let attributes = try copy(fields) as? [String: Any] else { return nil }
            return WorkplaceJoinKeychainItem(service: attributes[kSecAttrService as String] as? String,
                                             label: attributes[kSecAttrLabel as String] as? String,
                                             itemDescription: attributes[kSecAttrDescription as String] as? String,
                                             data: attributes[kSecValueData as String] as? Data)
        }
    }

    /// The result of one query; nil when nothing matches or the app may not read the group (MSAL treats both as
    /// "not registered"); any other status is an error.
    private func copy(_ fields: [String: Any]) throws -> CFTypeRef? {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(fields as CFDictionary, &result)
        if status == errSecItemNotFound || status == errSecMissingEntitlement { return nil }
        guard status == errSecSuccess else {
            throw MSALKeychainTokenCacheStorage.error(status, "device registration lookup", group: "com.microsoft.workplacejoin")
        }
        return result
    }
}

/// A registration key in the keychain: it signs with `SecKeyCreateSignature` and the algorithm MSAL picks for it
/// (`MSIDKeyOperationUtil.m:68-136`, `MSIDJWTHelper.m:49-59`).
struct KeychainDeviceKey: MSALDeviceRegistrationKey, @unchecked Sendable {
    let key: SecKey
    let algorithm: String
    private let signing: SecKeyAlgorithm

    /// nil for a key that signs neither as ES256 nor as RS256.
    init?(_ key: SecKey) {
        self.key = key
        if SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureDigestX962SHA256) {
            algorithm = "ES256"
            signing = .ecdsaSignatureMessageX962SHA256
        } else if SecKeyIsAlgorithmSupported(key, .sign, .rsaSignatureDigestPKCS1v15SHA256) {
            algorithm = "RS256"
            signing = .rsaSignatureMessagePKCS1v15SHA256
        } else {
            return nil
        }
    }

    func signature(for data: Data) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, signing, data as CFData, &error) else {
            let underlying = error?.takeRetainedValue()
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The device key could not sign"
                                         + (underlying.map { ": \($0.localizedDescription)" } ?? "."))
        }
        return signature as Data
    }
}
#endif
