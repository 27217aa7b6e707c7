import Foundation

/// The device-token grant of MSAL for iOS/macOS (its common core's `MSIDDeviceTokenGrantRequest` and
/// `MSIDDeviceTokenUtil`): a nonce from the token endpoint (`grant_type=srv_challenge`), then a JWT signed with the
/// device key, carrying the device certificate in `x5c`, sent as `request` of a `jwt-bearer` grant. The answer is
/// an access token for the device alone: one with a refresh token or an id token is refused.
struct DeviceTokenRequest: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The form of the nonce request.
    static let nonceParameters = [("grant_type", "srv_challenge")]
    /// The longest answer read.
    static let maximumAnswer = 1 << 20

    var tokenEndpoint: URL
    var clientId: String
    var redirectUri: String
    var resource: String
    var scopes: [String]
    var nonce: String
    var registration: MSALWorkplaceJoinRegistration

    /// Checks the request's own parameters (MSAL for iOS/macOS's rules: a resource, scopes, no `aza`).
    static func validate(resource: String, scopes: [String], correlationId: UUID) throws {
        guard !resource.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw MSALErrorInfo.invalidParameter("A device token needs a resource.", correlationId: correlationId)
        }
        guard !scopes.isEmpty, scopes.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
            throw MSALErrorInfo.invalidParameter("A device token needs scopes, each without spaces.", correlationId: correlationId)
        }
        guard !scopes.contains("aza") else {
            throw MSALErrorInfo.invalidParameter("A device token cannot be asked for with the aza scope.", correlationId: correlationId)
        }
    }

    /// The signed request JWT.
    func jwt() throws -> String {
        try registration.signedJWT([
            "grant_type": "device_token", "aud": tokenEndpoint.absoluteString, "iss": clientId, "client_id": clientId,
            "redirect_uri": redirectUri, "request_nonce": nonce, "scope": scopes.joined(separator: " "),
            "resource": resource,
        ])
    }

    /// The form body: the grant, its JWT, and no client info (no id token is wanted).
    func formParameters() throws -> [(String, String)] {
        [("grant_type", Self.grantType), ("request", try jwt()), ("client_info", "0")]
    }

    /// The nonce of a `srv_challenge` answer (`{"Nonce": "…"}`).
    static func nonce(from body: Data, correlationId: UUID) throws -> String {
        guard body.count <= maximumAnswer,
              let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
              let nonce = (object["Nonce"] ?? object["nonce"]) as? String, !nonce.isEmpty, nonce.utf8.count <= 4096 else {
            throw MSALErrorInfo.invalidResponse("The token endpoint's nonce answer has no nonce.", correlationId: correlationId)
        }
        return nonce
    }

    /// The result of a successful answer.
    static func result(from body: Data, requestedScopes: [String], authority: MSALAuthority, now: Date,
                       correlationId: UUID) throws -> MSALDeviceTokenResult {
        guard body.count <= maximumAnswer else {
            throw MSALErrorInfo.invalidResponse("The device token answer is too large.", correlationId: correlationId)
        }
        let response = try TokenResponse.parse(body, correlationId: correlationId)
        guard let accessToken = response.accessToken, !accessToken.isEmpty else {
            throw MSALErrorInfo.invalidResponse("The device token answer has no access token.", correlationId: correlationId)
        }
        guard response.refreshToken == nil, response.idToken == nil else {
            throw MSALErrorInfo.invalidResponse("The device token answer carries a user's tokens.", correlationId: correlationId)
        }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let deviceInfo = (object?["device_info"] as? String).flatMap { $0.utf8.count <= 65_536 ? $0 : nil }
        return MSALDeviceTokenResult(accessToken: accessToken, deviceInformation: deviceInfo,
                                     expiresOn: response.expiresIn.map { now.addingTimeInterval($0) },
                                     scopes: response.scopes ?? requestedScopes, authority: authority)
    }
}
