import Crypto
import Foundation
import MSALSupport
import SwiftASN1
import X509
import _CryptoExtras
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// An RSA key and a self-signed certificate for it, as an app registers for client assertions.
struct TestCertificate: Sendable {
    let key: _RSA.Signing.PrivateKey
    let pem: String
    let der: [UInt8]

    /// One key pair for the whole run: RSA key generation is slow.
    static let first = try! TestCertificate()
    static let second = try! TestCertificate()

    init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let name = try DistinguishedName { CommonName("MSAL emulator test client") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions(), issuerPrivateKey: .init(key)
        )
        let document = try certificate.serializeAsPEM()
        pem = document.pemString
        der = document.derBytes
    }

    var x5t: String { Base64URL.encode(Data(Insecure.SHA1.hash(data: der))) }
    var x5tS256: String { Base64URL.encode(Data(SHA256.hash(data: der))) }

    /// A signed client assertion. `header` entries replace the defaults (`nil` removes one); `claims` likewise.
    func assertion(
        alg: String = "RS256", thumbprint: String = "x5t#S256", header: [String: String?] = [:], claims: [String: Any?],
        signingKey: _RSA.Signing.PrivateKey? = nil
    ) throws -> String {
        var head: [String: Any] = ["typ": "JWT", "alg": alg, thumbprint: thumbprint == "x5t" ? x5t : x5tS256]
        for (name, value) in header { head[name] = value }
        var body: [String: Any] = [:]
        for (name, value) in claims { if let value { body[name] = value } }
        let input = Base64URL.encode(try JSONSerialization.data(withJSONObject: head.compactMapValues { $0 }, options: [.sortedKeys]))
            + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]))
        let padding: _RSA.Signing.Padding = alg == "PS256" ? .PSS : .insecurePKCS1v1_5
        let signature = try (signingKey ?? key).signature(for: Data(input.utf8), padding: padding)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

enum Confidential {
    static let tenant = "contoso.onmicrosoft.com"
    static let tokenPath = "/\(tenant)/oauth2/v2.0/token"
    static let graphDefault = "https://graph.microsoft.com/.default"
    static let middleTierScope = "api://\(EmulatorConfiguration.middleTierClientId)/access_as_user"
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The token endpoint URL a client assertion must name as its audience.
    static func audience(_ emulator: IdentityEmulator, tenant: String = tenant) -> String {
        "\(emulator.httpURL.absoluteString)/\(tenant)/oauth2/v2.0/token"
    }

    /// Standard claims of a client assertion for `clientId`, valid for ten minutes.
    static func claims(_ emulator: IdentityEmulator, clientId: String, now: Date = Date()) -> [String: Any?] {
        let iat = Int(now.timeIntervalSince1970)
        return [
            "aud": audience(emulator), "iss": clientId, "sub": clientId, "jti": UUID().uuidString,
            "iat": iat, "nbf": iat, "exp": iat + 600,
        ]
    }

    static func register(_ client: TestClient, _ certificate: TestCertificate, clientId: String) async throws -> Reply {
        try await client.send("POST", "/_emulator/applications/\(clientId)/certificates", body: Data(certificate.pem.utf8))
    }

    static func clientCredentials(_ client: TestClient, clientId: String, secret: String? = nil, assertion: String? = nil,
                                  scope: String = graphDefault, path: String = tokenPath) async throws -> Reply {
        var form = [("client_id", clientId), ("grant_type", "client_credentials"), ("scope", scope)]
        if let secret { form.append(("client_secret", secret)) }
        if let assertion { form += [("client_assertion_type", assertionType), ("client_assertion", assertion)] }
        return try await client.post(path, form: form)
    }

    /// A user access token from the password grant (the demo public client unless told otherwise).
    static func userToken(_ client: TestClient, _ emulator: IdentityEmulator, scope: String = middleTierScope) async throws -> String {
        let reply = try await client.post(tokenPath, form: [
            ("client_id", emulator.clientId), ("grant_type", "password"), ("username", emulator.username),
            ("password", emulator.password), ("scope", scope),
        ])
        return reply.json["access_token"] as? String ?? ""
    }

    static func onBehalfOf(_ client: TestClient, assertion: String, scope: String = "openid profile offline_access User.Read",
                           clientId: String = EmulatorConfiguration.middleTierClientId, secret: String? = "middle-tier-secret",
                           extra: [(String, String)] = [("requested_token_use", "on_behalf_of"), ("client_info", "1")]) async throws -> Reply {
        var form = [("client_id", clientId), ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion), ("scope", scope)]
        if let secret { form.append(("client_secret", secret)) }
        return try await client.post(tokenPath, form: form + extra)
    }

    static func code(_ reply: Reply) -> Int? { (reply.json["error_codes"] as? [Int])?.first }
}
