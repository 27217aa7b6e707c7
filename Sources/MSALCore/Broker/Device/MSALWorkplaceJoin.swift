public import Foundation
import Crypto

/// The private key of a device registration (workplace join): it signs the device's requests, such as
/// ``MSALPublicClientApplication/getDeviceToken(with:completionBlock:)``'s, and never leaves its store.
public protocol MSALDeviceRegistrationKey: Sendable {
    /// The JWS algorithm of its signatures: `ES256` for a P-256 key, `RS256` for an RSA key.
    var algorithm: String { get }
    /// The signature of `data` with SHA-256: for `RS256` PKCS #1 v1.5; for `ES256` the JWS form (64-byte `r || s`)
    /// or, as MSAL for iOS/macOS's keychain keys sign (`SecKeyCreateSignature` with X9.62), its DER form.
    func signature(for data: Data) throws -> Data
}

/// A P-256 device key held in memory (`ES256`): for devices registered by the emulator, and for registrations kept
/// outside a hardware key store.
public struct MSALP256DeviceRegistrationKey: MSALDeviceRegistrationKey {
    private let key: P256.Signing.PrivateKey

    /// The key of its 32-byte raw representation.
    ///
    /// - Throws: ``MSALErrorInfo`` (``MSALInternalError/internalErrorInvalidParameter``) when it is not a P-256
    ///   private key.
    public init(rawRepresentation: Data) throws {
        do {
            key = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
        } catch {
            throw MSALErrorInfo.invalidParameter("The device key is not a P-256 private key.")
        }
    }

    public var algorithm: String { "ES256" }

    public func signature(for data: Data) throws -> Data {
        try key.signature(for: data).rawRepresentation
    }
}

/// A device registration (workplace join) with Microsoft Entra ID: the device's identity in one tenant, its
/// certificate and key. MSAL for iOS/macOS reads it from the keychain items the Authenticator app or Company Portal
/// wrote when the device was registered; an ``MSALWorkplaceJoinStore`` gives it here.
public struct MSALWorkplaceJoinRegistration: Sendable {
    /// The Entra device id (the certificate's subject common name).
    public var deviceId: String
    /// The tenant the device is registered in.
    public var tenantId: String
    /// The user who registered the device, if known.
    public var userPrincipalName: String?
    /// The cloud host of the registration, such as `login.microsoftonline.com`.
    public var cloudHost: String?
    /// The device certificate, DER.
    public var certificate: Data
    /// The device key.
    public var key: any MSALDeviceRegistrationKey

    /// A registration.
    public init(deviceId: String, tenantId: String, userPrincipalName: String? = nil, cloudHost: String? = nil,
                certificate: Data, key: any MSALDeviceRegistrationKey) {
        self.deviceId = deviceId
        self.tenantId = tenantId
        self.userPrincipalName = userPrincipalName
        self.cloudHost = cloudHost
        self.certificate = certificate
        self.key = key
    }

    /// A JWT of `claims` signed with the device key, the device certificate in its header (`x5c`): what the device's
    /// own requests carry (the device-token grant, a PKeyAuth answer).
    func signedJWT(_ claims: [String: Any]) throws -> String {
        let header: [String: Any] = ["alg": key.algorithm, "typ": "JWT", "x5c": [certificate.base64EncodedString()]]
        let encodedHeader = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let encodedClaims = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let signingInput = "\(encodedHeader).\(encodedClaims)"
        return "\(signingInput).\(Base64URL.encode(try key.signature(for: Data(signingInput.utf8))))"
    }

    /// The certificate's SHA-1 thumbprint, upper-case hexadecimal.
    public var certificateThumbprint: String {
        Insecure.SHA1.hash(data: certificate).map { String(format: "%02X", $0) }.joined()
    }
}

/// Where the device's registrations are found (a device registers in one primary tenant, and may have others).
public protocol MSALWorkplaceJoinStore: Sendable {
    /// The registration in `tenantId`, or the primary registration when `tenantId` is nil; nil when the device is
    /// not registered there.
    func registration(tenantId: String?) throws -> MSALWorkplaceJoinRegistration?
}

/// Registrations held in memory: the first one given is the primary registration.
public struct MSALInMemoryWorkplaceJoinStore: MSALWorkplaceJoinStore {
    private let registrations: [MSALWorkplaceJoinRegistration]

    /// A store of `registrations`, the first of them primary.
    public init(_ registrations: [MSALWorkplaceJoinRegistration]) {
        self.registrations = registrations
    }

    public func registration(tenantId: String?) throws -> MSALWorkplaceJoinRegistration? {
        guard let tenantId else { return registrations.first }
        return registrations.first { $0.tenantId.lowercased() == tenantId.lowercased() }
    }
}

/// Workplace-join metadata of the device (``MSALPublicClientApplication/getWPJMetaDataDevice(with:forTenantId:completionBlock:)``):
/// the device id, the user who registered it and the tenant, under MSAL for iOS/macOS's keys
/// (`aadDeviceIdentifier`, `userPrincipalName`, `aadTenantIdentifier`); empty when the device is not registered.
public final class MSALWPJMetaData: Sendable, CustomStringConvertible {
    /// The metadata, as strings.
    public let extraDeviceInformationValues: [String: String]

    /// The metadata.
    public var extraDeviceInformation: [AnyHashable: Any] {
        Dictionary(uniqueKeysWithValues: extraDeviceInformationValues.map { (AnyHashable($0.key), $0.value as Any) })
    }

    init(_ registration: MSALWorkplaceJoinRegistration?) {
        var values: [String: String] = [:]
        if let registration {
            values["aadDeviceIdentifier"] = registration.deviceId
            values["aadTenantIdentifier"] = registration.tenantId
            values["userPrincipalName"] = registration.userPrincipalName
        }
        extraDeviceInformationValues = values
    }

    public var description: String { "MSALWPJMetaData(\(extraDeviceInformationValues))" }
}

/// Completion of ``MSALPublicClientApplication/getWPJMetaDataDevice(with:forTenantId:completionBlock:)``.
public typealias MSALWPJMetaDataCompletionBlock = (MSALWPJMetaData?, (any Error)?) -> Void
