import Foundation
import MSALSupport

/// What `POST /_emulator/federated-tokens` takes.
struct FederatedTokenRequest: Decodable {
    var subject: String
    var audience: String?
    var lifetime: Int?
}

/// A token minted by the emulator's federated issuer.
package struct FederatedToken: Sendable {
    package var token: String
    var issuer: String
    var subject: String
    var audience: String
    var expiresOn: Int

    var json: [String: Any] {
        ["token": token, "issuer": issuer, "subject": subject, "audience": audience, "expires_on": expiresOn]
    }
}

extension EmulatorCore {
    /// The path segment of the emulator's own OpenID Connect issuer (`{base}/federated-issuer`).
    package static let federatedIssuerSegment = "federated-issuer"
    /// The longest lifetime a minted federated token may have.
    static let federatedTokenMaxLifetime = 86_400

    /// The emulator's federated issuer as seen from a base URL.
    static func federatedIssuer(baseURL: String) -> String { "\(baseURL)/\(federatedIssuerSegment)" }

    /// Whether `issuer` is the emulator's own federated issuer at one of its listeners (HTTP or HTTPS, by
    /// `127.0.0.1` or `localhost`).
    func isOwnFederatedIssuer(_ issuer: String) -> Bool {
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), ["127.0.0.1", "localhost"].contains(host),
              url.path == "/\(EmulatorCore.federatedIssuerSegment)", url.query == nil, url.fragment == nil,
              let port = url.port, listenerPorts.contains(port) else { return false }
        return true
    }

    func federatedCredential(_ credential: FederatedCredential, hasIssuer issuer: String) -> Bool {
        credential.issuer == issuer || (credential.issuer == EmulatorConfiguration.emulatorFederatedIssuer && isOwnFederatedIssuer(issuer))
    }

    /// Whether a client assertion is a federated token rather than one the app signed itself: neither its issuer
    /// nor its subject is the client id.
    static func isFederatedAssertion(_ jwt: ParsedJWT, clientId: String) -> Bool {
        let iss = jwt.claims["iss"] as? String, sub = jwt.claims["sub"] as? String
        return iss != nil && iss != clientId && sub != clientId
    }

    /// Checks a federated client assertion (workload identity federation) as Entra ID does: a federated
    /// credential of the app must name its issuer, subject and one of its audiences; its signature must verify with
    /// the issuer's keys (the emulator holds those of its own issuer only); it must be within its time range.
    func verifyFederatedAssertion(_ text: String, _ jwt: ParsedJWT, app: EmulatedApplication) throws(EntraError) {
        guard jwt.header["alg"] as? String == "RS256" else {
            let shown = String(String(describing: jwt.header["alg"] ?? "none").prefix(16))
            throw EntraError(error: "invalid_client", code: 5002738, message: "Invalid JWT token. '\(shown)' is not a supported signature algorithm. Supported signing algorithms are: 'RS256'", status: 401)
        }
        for name in ["iss", "sub", "aud", "exp"] where jwt.claims[name] == nil {
            throw EntraError(error: "invalid_request", code: 90014, message: "The required field '\(name)' is missing from the credential. Ensure that you have all the necessary parameters for the login request.")
        }
        guard let issuer = jwt.claims["iss"] as? String, let subject = jwt.claims["sub"] as? String, let exp = jwt.number("exp") else {
            throw EntraError(error: "invalid_request", code: 50027, message: "JWT token is invalid or malformed.")
        }
        let audiences = (jwt.claims["aud"] as? String).map { [$0] } ?? (jwt.claims["aud"] as? [String] ?? [])
        let shownIssuer = issuer.prefix(256), shownSubject = subject.prefix(256)
        let shownAudience = audiences.joined(separator: ",").prefix(256)
        let check = "Please check your federated identity credential Subject, Audience and Issuer against the presented assertion."
        guard !app.federatedCredentials.isEmpty else {
            throw EntraError(error: "invalid_client", code: 70021, message: "No matching federated identity record found for presented assertion. Assertion Issuer: '\(shownIssuer)'. Assertion Subject: '\(shownSubject)'. Assertion Audience: '\(shownAudience)'.", status: 401)
        }
        let byIssuer = app.federatedCredentials.filter { federatedCredential($0, hasIssuer: issuer) }
        guard !byIssuer.isEmpty else {
            throw EntraError(error: "invalid_client", code: 700211, message: "No matching federated identity record found for presented assertion issuer '\(shownIssuer)'. \(check)", status: 401)
        }
        let bySubject = byIssuer.filter { $0.subject == subject }
        guard !bySubject.isEmpty else {
            throw EntraError(error: "invalid_client", code: 700213, message: "No matching federated identity record found for presented assertion subject '\(shownSubject)'. \(check)", status: 401)
        }
        guard bySubject.contains(where: { credential in audiences.contains { credential.audiences.contains($0) } }) else {
            throw EntraError(error: "invalid_client", code: 700212, message: "No matching federated identity record found for presented assertion audience '\(shownAudience)'. \(check)", status: 401)
        }
        guard isOwnFederatedIssuer(issuer) else {
            throw EntraError(error: "invalid_client", code: 7000272, message: "The signing keys of identity provider '\(shownIssuer)' could not be obtained: the emulator verifies the tokens of its own issuer ({base}/federated-issuer) only.", status: 401)
        }
        let kid = jwt.header["kid"] as? String ?? ""
        guard federatedKeys.knows(kid: kid) else {
            throw EntraError(error: "invalid_client", code: 7000272, message: "The certificate with identifier \(kid.prefix(64)) used to sign the federated credential could not be found in the metadata of identity provider \(shownIssuer). Please validate that your Identity Provider's metadata exposes the key used to sign the incoming token.", status: 401)
        }
        guard federatedKeys.verify(text) != nil else {
            throw EntraError(error: "invalid_client", code: 50013, message: "Assertion failed signature validation. [Reason - The provided signature value did not match the expected signature value.]", status: 401)
        }
        // A token of the emulator's own issuer: judged by the emulated clock, aged by any advance since it was minted.
        let now = self.now.timeIntervalSince1970
        let notBefore = jwt.number("nbf")
        let tokenId = jwt.claims["jti"] as? String
        if !isCurrent(exp: exp + EmulatorCore.assertionSkew, nbf: notBefore, tokenId: tokenId, skew: EmulatorCore.assertionSkew) {
            throw EntraError(
                error: "invalid_client", code: 700024,
                message: "Client assertion is not within its valid time range. Current time: \(EmulatorCore.isoTime(now)), assertion valid from \(EmulatorCore.isoTime(notBefore ?? 0)), expiry time of assertion \(EmulatorCore.isoTime(exp)).",
                status: 401
            )
        }
    }

    /// A token of the emulator's federated issuer (as a Kubernetes cluster projects for a service account):
    /// `iss` = `{base}/federated-issuer`, `sub`, `aud`, `iat`, `nbf`, `exp`, `jti`, signed with the issuer's key.
    package func mintFederatedToken(subject: String, audience: String?, lifetime: Int?, baseURL: String) throws -> FederatedToken {
        let issuer = EmulatorCore.federatedIssuer(baseURL: baseURL)
        let iat = issueTime.stamp
        let exp = iat + min(max(lifetime ?? 3600, 1), EmulatorCore.federatedTokenMaxLifetime)
        let tokenId = UUID().uuidString.lowercased()
        recordIssue(tokenId)
        let audience = audience ?? EmulatorConfiguration.federatedTokenAudience
        let token = try federatedKeys.sign([
            "iss": issuer, "sub": subject, "aud": [audience], "iat": iat, "nbf": iat, "exp": exp,
            "jti": tokenId,
        ])
        return FederatedToken(token: token, issuer: issuer, subject: subject, audience: audience, expiresOn: exp)
    }

    /// `POST /_emulator/federated-tokens` with `{"subject": ..., "audience": ..., "lifetime": ...}`.
    func federatedTokenControl(_ request: EmulatorRequest) throws -> EmulatorResponse {
        guard let body = try? JSONDecoder().decode(FederatedTokenRequest.self, from: request.rawBody),
              !body.subject.isEmpty, body.subject.utf8.count <= 1024, (body.audience?.utf8.count ?? 0) <= 1024 else {
            return .json(["error": "invalid_request", "error_description": "body must be JSON {\"subject\": \"...\", \"audience\": \"...\" (optional), \"lifetime\": seconds (optional)}"], status: 400)
        }
        return .json(try mintFederatedToken(subject: body.subject, audience: body.audience, lifetime: body.lifetime, baseURL: request.baseURL).json)
    }

    /// `GET /federated-issuer/.well-known/openid-configuration`: the issuer's discovery document.
    func federatedIssuerConfiguration(_ request: EmulatorRequest) -> EmulatorResponse {
        let issuer = EmulatorCore.federatedIssuer(baseURL: request.baseURL)
        return .json([
            "issuer": issuer, "jwks_uri": "\(issuer)/keys",
            "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
        ])
    }

    /// `GET /federated-issuer/keys`: the issuer's signing keys.
    func federatedIssuerKeys(_ request: EmulatorRequest) -> EmulatorResponse {
        .json(federatedKeys.jwks(issuer: nil))
    }
}
