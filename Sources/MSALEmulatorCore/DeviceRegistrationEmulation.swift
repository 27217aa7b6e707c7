import Crypto
public import Foundation
import MSALSupport
import SwiftASN1
import X509

/// The emulated device's registration (workplace join) as the emulator keeps it.
struct DeviceRegistrationRecord: Sendable {
    var tenantId: String
    var userPrincipalName: String?
    var publicKey: P256.Signing.PublicKey
}

/// A registration the emulator made for its device, with what the device keeps: its certificate and key.
public struct EmulatedDeviceRegistration: Sendable {
    /// The device id (the emulated broker's).
    public var deviceId: String
    /// The tenant the device is registered in.
    public var tenantId: String
    /// The user who registered it.
    public var userPrincipalName: String?
    /// The device certificate, DER (subject common name: the device id).
    public var certificate: Data
    /// The P-256 device key's raw representation.
    public var privateKey: Data
}

/// Device registration and device tokens, emulated: the emulator registers its one device (the emulated broker's,
/// with the same device id), answers `grant_type=srv_challenge` with a nonce, and redeems the device-token grant of
/// MSAL for iOS/macOS (`jwt-bearer` with a `request` JWT signed by the device key, its certificate in `x5c`) for an
/// access token of the device alone.
extension EmulatorCore {
    /// How long a `srv_challenge` nonce may be used.
    static let serverNonceLifetime: TimeInterval = 180

    /// Registers the emulated device in `tenant` (its id or a domain; by `userPrincipalName`), replacing any earlier
    /// registration.
    package func registerDevice(tenant: String, userPrincipalName: String?) throws -> EmulatedDeviceRegistration {
        let tenantId = (try? resolveContext(tenantSegment: tenant, policyName: nil, tfp: false))?.tenant?.id ?? tenant
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(broker.deviceId) }
        // Entra's device certificates: issued by MS-Organization-Access, its organisational unit a GUID (what a
        // PKeyAuth challenge's CertAuthorities names).
        let issuer = try DistinguishedName {
            DomainComponent("net")
            DomainComponent("windows")
            CommonName("MS-Organization-Access")
            OrganizationalUnitName(Self.organizationAccessUnit)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        broker.registration = DeviceRegistrationRecord(tenantId: tenantId, userPrincipalName: userPrincipalName,
                                                       publicKey: key.publicKey)
        return EmulatedDeviceRegistration(deviceId: broker.deviceId, tenantId: tenantId, userPrincipalName: userPrincipalName,
                                          certificate: Data(serializer.serializedBytes), privateKey: key.rawRepresentation)
    }

    /// Sets what the emulated SSO extension reports about the device's policies.
    package func setDevicePolicies(preferredAuthQRPIN: Bool, platformSSOStatus: String?) {
        broker.preferredAuthConfig = preferredAuthQRPIN ? "preferredAuthQRPIN" : "preferredAuthNotConfigured"
        broker.platformSSOStatus = platformSSOStatus
    }

    /// `grant_type=srv_challenge`: a nonce for a signed device request.
    func serverChallenge() -> [String: Any] {
        broker.serverNonces = broker.serverNonces.filter { $0.value > now }
        if broker.serverNonces.count >= 4096, let oldest = broker.serverNonces.min(by: { $0.value < $1.value })?.key {
            broker.serverNonces[oldest] = nil
        }
        let nonce = Base64URL.random(bytes: 32)
        broker.serverNonces[nonce] = now.addingTimeInterval(Self.serverNonceLifetime)
        return ["Nonce": nonce]
    }

    /// The device-token grant: the request JWT checked (the registered device's key, the nonce, the audience, the
    /// client), then an access token for the device alone.
    func deviceTokenGrant(_ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> [String: Any] {
        let jwt = try ParsedJWT(request.form["request"] ?? "")
        guard jwt.header["alg"] as? String == "ES256", let chain = jwt.header["x5c"] as? [String],
              let first = chain.first, first.utf8.count <= 8192, let der = Data(base64Encoded: first),
              let certificate = try? Certificate(derEncoded: Array(der)),
              let key = P256.Signing.PublicKey(certificate.publicKey) else {
            throw EntraError(error: "invalid_request", code: 50027, message: "JWT token is invalid or malformed.")
        }
        let deviceId = certificate.subject.description.replacingOccurrences(of: "CN=", with: "")
        guard let registration = broker.registration, deviceId == broker.deviceId,
              registration.publicKey.rawRepresentation == key.rawRepresentation else {
            throw EntraError(error: "invalid_grant", code: 1000707, message: "The device object was not found in the tenant's directory.")
        }
        guard let signature = P256.Signing.ECDSASignature.fromDeviceJWT(jwt.signature),
              key.isValidSignature(signature, for: jwt.signingInput) else {
            throw EntraError(error: "invalid_grant", code: 50012, message: "The device token request's signature is not valid.")
        }
        guard let nonce = jwt.claims["request_nonce"] as? String, let until = broker.serverNonces.removeValue(forKey: nonce),
              until > now else {
            throw EntraError(error: "invalid_grant", code: 135010, message: "The nonce of the request is not valid or has expired.")
        }
        guard jwt.claims["grant_type"] as? String == "device_token",
              let clientId = jwt.claims["client_id"] as? String, jwt.claims["iss"] as? String == clientId,
              let app = application(clientId) else {
            throw EntraError(error: "invalid_request", code: 90014, message: "The device token request does not name its client.")
        }
        let audience = (jwt.claims["aud"] as? String ?? "").lowercased()
        guard acceptedAssertionAudiences(request: request, context: context).contains(audience) else {
            throw EntraError(error: "invalid_grant", code: 50013, message: "The device token request's audience is not this token endpoint.")
        }
        guard let tenant = context.tenant, tenant.id == registration.tenantId else {
            throw EntraError(error: "invalid_grant", code: 1000707, message: "The device is not registered in this tenant.")
        }
        guard let resourceName = jwt.claims["resource"] as? String, let resource = appTokenResource(named: resourceName) else {
            throw EntraError(error: "invalid_resource", code: 500011, message: "The resource principal named in the request was not found in the tenant.")
        }
        let scope = (jwt.claims["scope"] as? String ?? "").prefix(4096)
        let iat = issueTime.stamp
        let lifetime = config.lifetimes.accessToken
        let tokenId = Base64URL.random(bytes: 16)
        recordIssue(tokenId)
        let claims: [String: Any] = [
            "aud": resource.audience, "iss": issuer(baseURL: request.baseURL, tenant: tenant),
            "iat": iat, "nbf": iat, "exp": iat + lifetime, "appid": app.clientId, "azp": app.clientId,
            "deviceid": broker.deviceId, "idtyp": "device", "oid": broker.deviceId, "sub": broker.deviceId,
            "scp": String(scope), "tid": tenant.id, "uti": tokenId, "ver": "2.0",
        ]
        prune()
        let token: String
        do { token = try keys.sign(claims) } catch {
            throw EntraError(error: "server_error", code: 90014, message: "The token could not be issued.", status: 500)
        }
        return ["token_type": "Bearer", "expires_in": lifetime, "ext_expires_in": lifetime, "scope": String(scope),
                "access_token": token]
    }
}
