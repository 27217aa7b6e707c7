import Crypto
import Foundation
import MSALSupport
import SwiftASN1
import X509

/// A PKeyAuth challenge the emulator issued: its nonce, single-use, until it expires.
struct DeviceAuthChallenge: Sendable {
    var nonce: String
    var expiresAt: Date
    /// The authorization waiting for the web view's answer.
    var pendingId: String? = nil
}

/// PKeyAuth, as Entra's device-based Conditional Access asks a client for its device's proof: a tenant under
/// ``EmulatedConditionalAccess/compliantDevice`` challenges a client that says it answers PKeyAuth (header
/// `x-ms-PkeyAuth+`) instead of refusing it, with HTTP 401 and `WWW-Authenticate: PKeyAuth …` in the form of the
/// common core's test vectors (`IdentityCore/tests/MSIDPKeyAuthHandlerTests.m:57`: `CertAuthorities`, `Version`,
/// `Context`, `nonce`). The answer in `Authorization` is either the empty form (no registration: the request goes
/// on, and the policy refuses it with AADSTS53000) or `AuthToken="<JWT>"`: its signature by the key of the device the
/// emulator registered (certificate in `x5c`), `aud` this endpoint without its query, a nonce it issued, once. A
/// signed answer that fails any check is refused (AADSTS50012), not taken as no device.
extension EmulatorCore {
    /// The organisational unit of the device certificates' issuer (`OU=… ,CN=MS-Organization-Access`), as in the
    /// common core's test vectors.
    static let organizationAccessUnit = "82dbaca4-3e81-46ca-9c73-0950c1eaca97"
    static let certAuthorities = "OU=\(organizationAccessUnit),CN=MS-Organization-Access,DC=windows,DC=net"
    /// How long a challenge's nonce may be answered.
    static let deviceChallengeLifetime: TimeInterval = 300

    /// Whether `request` to `context` is to prove its device: the tenant requires a compliant device, and the client
    /// says it can (`x-ms-PkeyAuth+`, header names arrive in lower case).
    func asksDeviceProof(_ context: TenantContext, _ request: EmulatorRequest) -> Bool {
        context.tenant?.conditionalAccess == .compliantDevice && request.headers["x-ms-pkeyauth+"] != nil
    }

    /// Whether a web view's authorization request is to prove its device: the tenant requires a compliant device, and
    /// the web view says it can (`x-ms-PkeyAuth+` on its first request, `PKeyAuth/1.0` in its user agent).
    func asksDeviceProofInWebView(_ context: TenantContext, _ request: EmulatorRequest) -> Bool {
        context.tenant?.conditionalAccess == .compliantDevice
            && (request.headers["x-ms-pkeyauth+"] != nil || (request.headers["user-agent"] ?? "").contains("PKeyAuth/1.0"))
    }

    /// The web view's challenge: a redirect to `urn:http-auth:PKeyAuth?…` naming where to send the answer
    /// (`/common/DeviceAuthPKeyAuth`), in the form of the common core's test vector
    /// (`IdentityCore/tests/MSIDPKeyAuthHandlerTests.m:124`).
    func webDeviceChallenge(pendingId: String, context: TenantContext, request: EmulatorRequest) -> EmulatorResponse {
        let challenge = newDeviceChallenge()
        deviceChallenges[challenge.context]?.pendingId = pendingId
        let query = FormCoding.encode([
            ("CertAuthorities", Self.certAuthorities), ("Version", "1.0"), ("Context", challenge.context),
            ("nonce", challenge.nonce), ("SubmitUrl", "\(request.baseURL)/common/DeviceAuthPKeyAuth"),
            ("TenantId", context.tenant?.id ?? ""),
        ])
        return .redirect("urn:http-auth:PKeyAuth?" + query)
    }

    /// `GET /common/DeviceAuthPKeyAuth`: the web view's answer. A proven device goes with the authorization (its code
    /// gives device-bound tokens); the empty answer lets it go on without one; then the sign-in continues.
    func deviceAuthSubmit(_ request: EmulatorRequest) -> EmulatorResponse {
        guard let answer = request.headers["authorization"],
              let contextValue = Self.pkeyAuthFields(answer)["Context"],
              let pendingId = deviceChallenges[contextValue]?.pendingId else {
            return errorPage(EntraError(error: "invalid_request", code: 50012, message: "The device authentication answer names no challenge of this server."))
        }
        let device: String?
        do {
            device = try deviceProven(by: answer, audience: "\(request.baseURL)/\(request.segments.joined(separator: "/"))")
        } catch {
            return errorPage(error)
        }
        guard let flow = pending[pendingId] else {
            return errorPage(EntraError(error: "invalid_request", code: 90014, message: "The sign-in session has expired."))
        }
        if let device, broker.registration?.tenantId == flow.context.tenant?.id { pending[pendingId]?.deviceId = device }
        return proceedAuthorization(pendingId, request)
    }

    /// A new challenge: its context and nonce.
    func newDeviceChallenge() -> (context: String, nonce: String) {
        deviceChallenges = deviceChallenges.filter { $0.value.expiresAt > now }
        if deviceChallenges.count >= 4096, let oldest = deviceChallenges.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
            deviceChallenges[oldest] = nil
        }
        let context = Base64URL.random(bytes: 16)
        let nonce = Base64URL.random(bytes: 32)
        deviceChallenges[context] = DeviceAuthChallenge(nonce: nonce, expiresAt: now.addingTimeInterval(Self.deviceChallengeLifetime))
        return (context, nonce)
    }

    /// The token endpoint's challenge: HTTP 401 with `WWW-Authenticate: PKeyAuth …`.
    func tokenDeviceChallenge(_ context: TenantContext, _ request: EmulatorRequest) -> EmulatorResponse {
        let challenge = newDeviceChallenge()
        let header = "PKeyAuth CertAuthorities=\"\(Self.certAuthorities)\", Version=\"1.0\", Context=\"\(challenge.context)\", "
            + "nonce=\"\(challenge.nonce)\", TenantId=\"\(context.tenant?.id ?? "")\""
        return .json([:], status: 401, headers: [("WWW-Authenticate", header), ("client-request-id", request.correlationId)])
    }

    /// The device an `Authorization: PKeyAuth …` answer proves for `audience`: the registered device's id for a valid
    /// signed answer, nil for the empty form.
    func deviceProven(by answer: String, audience: String) throws(EntraError) -> String? {
        let fields = Self.pkeyAuthFields(answer)
        guard let contextValue = fields["Context"], let issued = deviceChallenges.removeValue(forKey: contextValue),
              issued.expiresAt > now else {
            throw EntraError(error: "invalid_request", code: 50012, message: "The device authentication answer names no challenge of this server.")
        }
        guard let token = fields["AuthToken"], !token.isEmpty else { return nil }
        let invalid = EntraError(error: "invalid_grant", code: 50012, message: "The device authentication answer is not valid.")
        guard let jwt = try? ParsedJWT(token), jwt.header["alg"] as? String == "ES256",
              let chain = jwt.header["x5c"] as? [String], let first = chain.first, first.utf8.count <= 8192,
              let der = Data(base64Encoded: first), let certificate = try? Certificate(derEncoded: Array(der)),
              let key = P256.Signing.PublicKey(certificate.publicKey),
              let registration = broker.registration, registration.publicKey.rawRepresentation == key.rawRepresentation,
              let signature = P256.Signing.ECDSASignature.fromDeviceJWT(jwt.signature),
              key.isValidSignature(signature, for: jwt.signingInput) else { throw invalid }
        guard jwt.claims["nonce"] as? String == issued.nonce,
              (jwt.claims["aud"] as? String)?.lowercased() == audience.lowercased() else { throw invalid }
        return broker.deviceId
    }

    /// The `name="value"` fields of an `Authorization: PKeyAuth …` value (the emulator's own reading of the
    /// format, `PKeyAuth AuthToken="…", Context="…", Version="…"`).
    static func pkeyAuthFields(_ value: String) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(value.prefix(16_384))
        guard rest.lowercased().hasPrefix("pkeyauth") else { return fields }
        rest = rest.dropFirst("pkeyauth".count)
        while let equals = rest.firstIndex(of: "="), fields.count < 16 {
            let name = rest[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: " ,\t"))
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { break }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { break }
            fields[name] = String(rest[..<close])
            rest = rest[rest.index(after: close)...]
        }
        return fields
    }
}
