import MSALSupport
import Foundation

import _CryptoExtras

/// How a client proved who it is at the token endpoint.
struct ClientAuthentication: Sendable {
    enum Method: Sendable { case none, secret, certificate, federated }
    var app: EmulatedApplication
    var method: Method

    /// The `azpacr`/`appidacr` claim: 0 public client, 1 secret, 2 certificate.
    var authenticationClass: String {
        switch method {
        case .none: "0"
        case .secret: "1"
        case .certificate, .federated: "2"
        }
    }
}

extension EmulatorCore {
    static let jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// Allowed clock skew for client assertions.
    static let assertionSkew: TimeInterval = 300
    /// The longest lifetime a client assertion may have.
    static let assertionMaxLifetime: TimeInterval = 86_400

    /// Identifies the app and checks its credential: public clients must send none, confidential clients a
    /// `client_secret` (form or HTTP Basic) or a `client_assertion` (a JWT signed with a registered certificate, or
    /// a token of an issuer one of its federated credentials trusts).
    func authenticateClient(_ request: EmulatorRequest, context: TenantContext) throws(EntraError) -> ClientAuthentication {
        var clientId = request.form["client_id"]
        var secret = request.form["client_secret"]
        if let header = request.headers["authorization"], header.lowercased().hasPrefix("basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }) {
            let parts = decoded.split(separator: ":", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { clientId = clientId ?? parts[0]; secret = secret ?? parts[1] }
        }
        let assertion = request.form["client_assertion"]
        if clientId == nil, let assertion, let parsed = try? ParsedJWT(assertion) {
            // RFC 7523 §3: the client may be identified by the assertion's subject alone.
            clientId = parsed.claims["sub"] as? String
        }
        guard let clientId, !clientId.isEmpty else { throw EntraError.missing("client_id") }
        guard let app = application(clientId) else { throw EntraError.unknownClient(clientId) }
        if app.isPublicClient {
            if secret != nil || assertion != nil {
                throw EntraError(error: "invalid_client", code: 700025, message: "Client is public so neither 'client_assertion' nor 'client_secret' should be presented.", status: 401)
            }
            return ClientAuthentication(app: app, method: .none)
        }
        switch (secret, assertion) {
        case (nil, nil):
            throw EntraError.credentialRequired
        case (.some, .some):
            throw EntraError(error: "invalid_request", code: 900144, message: "The request body must contain only one of the following parameters: 'client_assertion' or 'client_secret'.")
        case (.some(let secret), nil):
            guard let expected = app.clientSecret, EmulatorCore.constantTimeEquals(secret, expected) else {
                throw EntraError(error: "invalid_client", code: 7000215, message: "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '\(app.clientId)'.", status: 401)
            }
            return ClientAuthentication(app: app, method: .secret)
        case (nil, .some(let assertion)):
            guard let type = request.form["client_assertion_type"] else { throw EntraError.missing("client_assertion_type") }
            guard type == EmulatorCore.jwtBearerAssertionType else {
                throw EntraError(error: "invalid_request", code: 50027, message: "Invalid JWT token. The client_assertion_type must be '\(EmulatorCore.jwtBearerAssertionType)'.")
            }
            if let parsed = try? ParsedJWT(assertion), EmulatorCore.isFederatedAssertion(parsed, clientId: app.clientId) {
                try verifyFederatedAssertion(assertion, parsed, app: app)
                return ClientAuthentication(app: app, method: .federated)
            }
            try verifyClientAssertion(assertion, app: app, request: request, context: context)
            return ClientAuthentication(app: app, method: .certificate)
        }
    }

    /// Checks a client assertion: RS256/PS256 signature by a registered certificate, `iss` = `sub` = client id,
    /// `aud` = this token endpoint, time range, and (by default) a `jti` not seen before.
    func verifyClientAssertion(_ text: String, app: EmulatedApplication, request: EmulatorRequest, context: TenantContext) throws(EntraError) {
        let jwt = try ParsedJWT(text)
        guard let alg = jwt.header["alg"] as? String, alg == "RS256" || alg == "PS256" else {
            let shown = String(String(describing: jwt.header["alg"] ?? "none").prefix(16))
            throw EntraError(error: "invalid_client", code: 5002738, message: "Invalid JWT token. '\(shown)' is not a supported signature algorithm. Supported signing algorithms are: 'RS256,PS256'", status: 401)
        }
        let sha256 = (jwt.header["x5t#S256"] as? String).flatMap { Base64URL.decode($0) }
        let sha1 = (jwt.header["x5t"] as? String).flatMap { Base64URL.decode($0) }
        guard sha256 != nil || sha1 != nil else {
            throw EntraError(error: "invalid_client", code: 5002723, message: "Invalid JWT token. No certificate SHA-1 thumbprint, certificate SHA-256 thumbprint, nor keyId specified in token header.", status: 401)
        }
        let certificates = clientCertificates(of: app)
        let match = certificates.first { certificate in
            if let sha256 { return certificate.sha256 == sha256 }
            return certificate.sha1 == sha1
        }
        guard let certificate = match else {
            let shown = sha1.map { $0.map { String(format: "%02X", $0) }.joined() } ?? sha256.map { Base64URL.encode($0) } ?? ""
            throw EntraError(
                error: "invalid_client", code: 700027,
                message: "The certificate with identifier used to sign the client assertion is not registered on application. [Reason - The key was not found., Thumbprint of key used by client: '\(shown.prefix(64))', Please visit the emulator's configuration to see configured keys for app Id '\(app.clientId)'.]",
                status: 401
            )
        }
        guard certificate.notValidBefore <= self.now, certificate.notValidAfter > self.now else {
            throw EntraError(
                error: "invalid_client", code: 700027,
                message: "Client assertion contains an invalid signature. [Reason - The key used is expired., Thumbprint of key used by client: '\(certificate.thumbprintHex)', Found key 'Start=\(EmulatorCore.keyDate(certificate.notValidBefore)), End=\(EmulatorCore.keyDate(certificate.notValidAfter))']",
                status: 401
            )
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        let padding: _RSA.Signing.Padding = alg == "PS256" ? .PSS : .insecurePKCS1v1_5
        guard certificate.publicKey.isValidSignature(signature, for: jwt.signingInput, padding: padding) else {
            throw EntraError(
                error: "invalid_client", code: 700027,
                message: "Client assertion failed signature validation. [Reason - The provided signature value did not match the expected signature value., Thumbprint of key used by client: '\(certificate.thumbprintHex)', Found key 'Start=\(EmulatorCore.keyDate(certificate.notValidBefore)), End=\(EmulatorCore.keyDate(certificate.notValidAfter))']",
                status: 401
            )
        }
        for name in ["aud", "iss", "sub", "exp", "jti"] where jwt.claims[name] == nil {
            throw EntraError(error: "invalid_request", code: 90014, message: "The required field '\(name)' is missing from the credential. Ensure that you have all the necessary parameters for the login request.")
        }
        guard jwt.claims["iss"] as? String == app.clientId, jwt.claims["sub"] as? String == app.clientId else {
            throw EntraError(error: "invalid_client", code: 700021, message: "Client assertion application identifier doesn't match 'client_id' parameter. Review the documentation at https://docs.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials .", status: 401)
        }
        let audiences = (jwt.claims["aud"] as? String).map { [$0] } ?? (jwt.claims["aud"] as? [String] ?? [])
        let accepted = acceptedAssertionAudiences(request: request, context: context)
        guard audiences.contains(where: { accepted.contains($0.lowercased()) }) else {
            throw EntraError(error: "invalid_client", code: 700023, message: "Client assertion audience claim does not match Realm issuer. Review the documentation at https://docs.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials .", status: 401)
        }
        let now = self.now.timeIntervalSince1970
        guard let exp = jwt.number("exp"), let jti = jwt.claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw EntraError(error: "invalid_request", code: 50027, message: "JWT token is invalid or malformed.")
        }
        let notBefore = jwt.number("nbf")
        let start = notBefore ?? jwt.number("iat") ?? now
        if !assertionIsCurrent(exp: exp, nbf: notBefore, skew: EmulatorCore.assertionSkew) {
            throw EntraError(
                error: "invalid_client", code: 700024,
                message: "Client assertion is not within its valid time range. Current time: \(EmulatorCore.isoTime(now)), assertion valid from \(EmulatorCore.isoTime(notBefore ?? 0)), expiry time of assertion \(EmulatorCore.isoTime(exp)). Review the documentation at https://docs.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials .",
                status: 401
            )
        }
        guard exp - start <= EmulatorCore.assertionMaxLifetime else {
            throw EntraError(error: "invalid_client", code: 700024, message: "Client assertion contains an invalid lifetime: it is valid for more than 1 day (from \(EmulatorCore.isoTime(start)) to \(EmulatorCore.isoTime(exp))).", status: 401)
        }
        if config.rejectsReplayedClientAssertions {
            let key = "\(app.clientId)|\(jti)"
            if let seen = usedClientAssertions[key], seen > self.now {
                throw EntraError(error: "invalid_client", code: 50027, message: "Invalid JWT token. The client assertion with this 'jti' was already used; sign a new assertion with a new 'jti' for every request.", status: 401)
            }
            rememberClientAssertion(key, until: Date(timeIntervalSince1970: exp + EmulatorCore.assertionSkew))
        }
    }

    /// Every `aud` a client assertion may carry for this request: the token endpoint URL with the tenant as
    /// addressed, as its GUID or any of its domains, and the tenant's v2.0 issuer.
    func acceptedAssertionAudiences(request: EmulatorRequest, context: TenantContext) -> Set<String> {
        let base = request.baseURL.lowercased()
        var segments: Set<String> = []
        if let first = request.segments.first { segments.insert(first.lowercased()) }
        var accepted: Set<String> = []
        if let tenant = context.tenant {
            segments.insert(tenant.id)
            segments.formUnion(tenant.domains.map { $0.lowercased() })
            accepted.insert("\(base)/\(tenant.id)/v2.0")
            accepted.insert("\(base)/\(tenant.id)/v2.0/")
        }
        for segment in segments {
            accepted.insert("\(base)/\(segment)/oauth2/v2.0/token")
        }
        return accepted
    }

    func rememberClientAssertion(_ key: String, until expiry: Date) {
        if usedClientAssertions.count > 1000 {
            let now = self.now
            usedClientAssertions = usedClientAssertions.filter { $0.value > now }
            if usedClientAssertions.count > EmulatorCore.maxEntries { usedClientAssertions.removeAll() }
        }
        usedClientAssertions[key] = expiry
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        ConstantTime.equals(a, b)
    }

    /// `2024-10-02T22:05:03.0000000Z`, as Entra's time-range errors write times.
    static func isoTime(_ seconds: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSS'Z'"
        let clamped = min(max(seconds, 0), 253_402_300_799)
        return formatter.string(from: Date(timeIntervalSince1970: clamped))
    }

    /// `02/07/2021 17:00:39`, as Entra's signature errors write a key's validity.
    static func keyDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MM/dd/yyyy HH:mm:ss"
        return formatter.string(from: date)
    }
}

extension EntraError {
    /// A confidential client sent no credential (also what a public client gets for a confidential-only grant).
    static let credentialRequired = EntraError(
        error: "invalid_client", code: 7000218,
        message: "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.", status: 401
    )
}

/// A compact JWS split into its parts; nothing is verified here.
struct ParsedJWT {
    let header: [String: Any]
    let claims: [String: Any]
    let signature: Data
    /// `base64url(header).base64url(payload)`, the bytes the signature covers.
    let signingInput: Data

    init(_ token: String) throws(EntraError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 16_384, parts.count == 3,
              let headerData = Base64URL.decode(parts[0]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let payloadData = Base64URL.decode(parts[1]),
              let claims = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any],
              let signature = Base64URL.decode(parts[2])
        else {
            throw EntraError(error: "invalid_request", code: 50027, message: "JWT token is invalid or malformed.")
        }
        self.header = header
        self.claims = claims
        self.signature = signature
        signingInput = Data("\(parts[0]).\(parts[1])".utf8)
    }

    /// A numeric claim (JSON numbers may be integers or, as some libraries write times, fractions).
    func number(_ name: String) -> TimeInterval? {
        if let value = claims[name] as? Int { return TimeInterval(value) }
        if let value = claims[name] as? Double, value.isFinite { return value }
        return nil
    }
}
