package import Foundation

/// One keychain query of the device-registration lookup, as MSAL for iOS/macOS's common core makes it
/// (`MSIDWorkPlaceJoinUtilBase.m`, `findWPJRegistrationInfoWithAdditionalPrivateKeyAttributes`, `getWPJKeysWithTenantId`,
/// `getWPJStringDataForIdentifier`, `getPrimaryEccTenantWithSharedAccessGroup`, `readWPJMetadataWithSharedAccessGroup`):
/// the Apple keychain adapter turns each into a `SecItemCopyMatching` dictionary, and tests answer them from fixtures.
package enum WorkplaceJoinKeychainQuery: Equatable, Sendable {
    /// A private key (`kSecClassKey`, returning attributes and the key): by application tag, key type (RSA, or a
    /// 256-bit P-256 key), access group, and on macOS the data-protection keychain (`kSecUseDataProtectionKeychain`).
    case privateKey(tag: Data, type: WorkplaceJoinKeyType, accessGroup: String?, dataProtection: Bool)
    /// The certificate of a key (`kSecClassCertificate`, returning the certificate): by `kSecAttrPublicKeyHash`, the
    /// key's `kSecAttrApplicationLabel`.
    case certificate(publicKeyHash: Data, accessGroup: String?, dataProtection: Bool)
    /// A generic password (returning its attributes, and its data when `returnData`): by account and service.
    case genericPassword(account: String?, service: String?, accessGroup: String?, dataProtection: Bool, returnData: Bool)
}

/// The key type a registration's key query names (`kSecAttrKeyType`).
package enum WorkplaceJoinKeyType: Equatable, Sendable {
    /// `kSecAttrKeyTypeRSA` (the legacy and iOS default RSA registrations).
    case rsa
    /// `kSecAttrKeyTypeECSECPrimeRandom` with `kSecAttrKeySizeInBits` 256 (the default ECC registrations).
    case ec256
}

/// What a query found: the parts of the item the lookup reads.
package struct WorkplaceJoinKeychainItem: Sendable {
    /// A private key's key, signing as MSAL does.
    package var key: (any MSALDeviceRegistrationKey)?
    /// A private key's `kSecAttrApplicationLabel` (its public key's hash).
    package var applicationLabel: Data?
    /// A certificate's DER (`SecCertificateCopyData`).
    package var certificate: Data?
    /// A certificate's subject summary (`SecCertificateCopySubjectSummary`: its common name).
    package var certificateSubject: String?
    /// A generic password's `kSecAttrService`, `kSecAttrLabel` and `kSecAttrDescription`, and its data.
    package var service: String?
    package var label: String?
    package var itemDescription: String?
    package var data: Data?

    package init(key: (any MSALDeviceRegistrationKey)? = nil, applicationLabel: Data? = nil, certificate: Data? = nil,
                 certificateSubject: String? = nil, service: String? = nil, label: String? = nil,
                 itemDescription: String? = nil, data: Data? = nil) {
        self.key = key
        self.applicationLabel = applicationLabel
        self.certificate = certificate
        self.certificateSubject = certificateSubject
        self.service = service
        self.label = label
        self.itemDescription = itemDescription
        self.data = data
    }
}

/// A keychain the lookup reads: nil for an item that is not there (`errSecItemNotFound`), a thrown error for any
/// other failure.
package protocol WorkplaceJoinKeychain: Sendable {
    func item(matching query: WorkplaceJoinKeychainQuery) throws -> WorkplaceJoinKeychainItem?
}

/// Where MSAL for iOS/macOS finds the device's registration that Microsoft Authenticator or Company Portal wrote,
/// in the order and with the queries of `getWPJKeysWithTenantId` (`MSIDWorkPlaceJoinUtilBase.m:273-404`):
///
/// 1. the legacy (v1) RSA key, tag `com.microsoft.workplacejoin.privatekey` with its terminating NUL, in
///    `<team>.com.microsoft.workplacejoin` on iOS and in the login keychain on macOS (no group) (`:283-297`),
///    returned when no tenant is asked for or its tenant item names the one asked for (`:303-319`);
/// 2. on iOS only, for a named tenant, the default RSA key `…privatekey\0#<tenant>` in
///    `<team>.com.microsoft.workplacejoin.v2` (`:329-351`);
/// 3. the default ECC key `…privatekey\0#<tenant>-EC` (256 bits, the data-protection keychain on macOS), the tenant
///    being the primary one of the `ecc_default_tenant` item when none is asked for (`:353-398`, `:406-444`);
/// 4. else the legacy registration of another tenant, if any (`:400-403`).
///
/// A key's certificate is the one whose public key hash is the key's application label (`:197-271`). The device id
/// and user come from the v2 metadata item (service = tenant; JSON data, `kSecAttrLabel` the user,
/// `kSecAttrDescription` the cloud host; `:446-508`), or for v1 from the certificate's subject and the
/// `…registeredUserPrincipalName` and `…tenantId` items (account = identifier, value in `kSecAttrService`; `:40-109`).
package struct WorkplaceJoinKeychainLookup: Sendable {
    /// The platform, whose queries differ.
    package enum Platform: Sendable { case iOS, macOS }

    package static let privateKeyIdentifier = "com.microsoft.workplacejoin.privatekey\u{0}"
    package static let tenantIdentifier = "com.microsoft.workplacejoin.tenantId"
    package static let userPrincipalNameIdentifier = "com.microsoft.workplacejoin.registeredUserPrincipalName"
    package static let thumbprintKey = "com.microsoft.workplacejoin.thumbprint"
    package static let deviceIdKey = "com.microsoft.workplacejoin.certificateCommonNameIdentifier"
    package static let primaryTenantItem = "ecc_default_tenant"

    package let platform: Platform
    package let teamId: String

    package init(platform: Platform, teamId: String) {
        self.platform = platform
        self.teamId = teamId
    }

    package var legacyGroup: String { "\(teamId).com.microsoft.workplacejoin" }
    package var defaultGroup: String { "\(teamId).com.microsoft.workplacejoin.v2" }

    /// The registration in `tenantId` (nil or blank: the primary one), or nil when the device has none.
    package func registration(tenantId: String?, in keychain: any WorkplaceJoinKeychain) throws -> MSALWorkplaceJoinRegistration? {
        let wanted = tenantId.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        let macOS = platform == .macOS
        // 1. Legacy: on macOS the login keychain (no group, no data protection) for the key and its certificate.
        let legacyKeyGroup = macOS ? nil : legacyGroup
        var legacy: MSALWorkplaceJoinRegistration?
        if let found = try keyAndCertificate(tag: Data(Self.privateKeyIdentifier.utf8), type: .rsa, keyGroup: legacyKeyGroup,
                                             keyDataProtection: false, certificateGroup: legacyKeyGroup,
                                             certificateDataProtection: false, in: keychain) {
            let tenant = try legacyString(Self.tenantIdentifier, in: keychain)
            let user = try legacyString(Self.userPrincipalNameIdentifier, in: keychain)
            let registration = MSALWorkplaceJoinRegistration(
                deviceId: found.subject ?? "", tenantId: tenant ?? wanted ?? "", userPrincipalName: user,
                certificate: found.certificate, key: found.key)
            guard let wanted else { return registration }
            if tenant?.lowercased() == wanted.lowercased() { return registration }
            legacy = registration
        }
        // 2. iOS: the default RSA registration of a named tenant.
        if !macOS, let wanted,
           let found = try keyAndCertificate(tag: Data("\(Self.privateKeyIdentifier)#\(wanted)".utf8), type: .rsa,
                                             keyGroup: defaultGroup, keyDataProtection: false, certificateGroup: defaultGroup,
                                             certificateDataProtection: false, in: keychain) {
            return try defaultRegistration(found, tenantId: wanted, in: keychain)
        }
        // 3. The default ECC registration, of the primary tenant when none is named.
        guard let tenant = try wanted ?? primaryTenant(in: keychain) else { return legacy }
        if let found = try keyAndCertificate(tag: Data("\(Self.privateKeyIdentifier)#\(tenant)-EC".utf8), type: .ec256,
                                             keyGroup: defaultGroup, keyDataProtection: macOS, certificateGroup: defaultGroup,
                                             certificateDataProtection: macOS, in: keychain) {
            return try defaultRegistration(found, tenantId: tenant, in: keychain)
        }
        return legacy
    }

    private struct Found {
        var key: any MSALDeviceRegistrationKey
        var certificate: Data
        var subject: String?
    }

    private func keyAndCertificate(tag: Data, type: WorkplaceJoinKeyType, keyGroup: String?, keyDataProtection: Bool,
                                   certificateGroup: String?, certificateDataProtection: Bool,
                                   in keychain: any WorkplaceJoinKeychain) throws -> Found? {
        guard let keyItem = try keychain.item(matching: .privateKey(tag: tag, type: type, accessGroup: keyGroup,
                                                                   dataProtection: keyDataProtection)),
              let key = keyItem.key, let label = keyItem.applicationLabel, !label.isEmpty,
              let certificateItem = try keychain.item(matching: .certificate(publicKeyHash: label, accessGroup: certificateGroup,
                                                                             dataProtection: certificateDataProtection)),
              let certificate = certificateItem.certificate, !certificate.isEmpty else { return nil }
        return Found(key: key, certificate: certificate, subject: certificateItem.certificateSubject)
    }

    /// A v1 string item: account = identifier, the value in the service attribute (iOS: the legacy group; macOS:
    /// the login keychain).
    private func legacyString(_ identifier: String, in keychain: any WorkplaceJoinKeychain) throws -> String? {
        let item = try keychain.item(matching: .genericPassword(account: identifier, service: nil,
                                                                accessGroup: platform == .macOS ? nil : legacyGroup,
                                                                dataProtection: false, returnData: false))
        return item?.service.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The primary tenant of the default registrations (`ecc_default_tenant`, the tenant in its description).
    private func primaryTenant(in keychain: any WorkplaceJoinKeychain) throws -> String? {
        let item = try keychain.item(matching: .genericPassword(account: Self.primaryTenantItem, service: Self.primaryTenantItem,
                                                                accessGroup: defaultGroup, dataProtection: platform == .macOS,
                                                                returnData: false))
        return item?.itemDescription.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }

    /// A default registration with its metadata item (service = tenant; no data-protection flag on either platform).
    private func defaultRegistration(_ found: Found, tenantId: String,
                                     in keychain: any WorkplaceJoinKeychain) throws -> MSALWorkplaceJoinRegistration {
        let metadata = try keychain.item(matching: .genericPassword(account: nil, service: tenantId, accessGroup: defaultGroup,
                                                                    dataProtection: false, returnData: true))
        let fields = metadata?.data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        return MSALWorkplaceJoinRegistration(
            deviceId: fields[Self.deviceIdKey] as? String ?? found.subject ?? "", tenantId: tenantId,
            userPrincipalName: metadata?.label, cloudHost: metadata?.itemDescription,
            certificate: found.certificate, key: found.key)
    }
}
