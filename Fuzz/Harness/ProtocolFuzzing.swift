import Foundation
@testable import MSALCore
@testable import MSALLoopback
@testable import MSALHTTPTransport

/// What identity-provider servers send: id tokens, `client_info`, token and error bodies, device-code answers,
/// authorization redirects, instance discovery, OpenID metadata and signing keys.
enum ProtocolFuzzing {
    // MARK: Id tokens

    /// The input as a token string; and as `header JSON \n payload JSON` made into a compact JWS (so mutations
    /// reach the claims); then every claim accessor and the claim validation with two expected issuers.
    static func idToken(_ data: Data) throws {
        try idTokenString(String(decoding: data, as: UTF8.self))
        let header: Data
        let payload: Data
        if let newline = data.firstIndex(of: 0x0A) {
            header = data[data.startIndex..<newline]
            payload = data[(newline + 1)...]
        } else {
            header = Data(#"{"alg":"RS256","kid":"k1","typ":"JWT"}"#.utf8)
            payload = data
        }
        try idTokenString(Base64URL.encode(header) + "." + Base64URL.encode(payload) + ".c2lnbmF0dXJl")
    }

    private static func idTokenString(_ raw: String) throws {
        guard let token = try fuzzExpectingTypedErrors("IdToken(raw:)", { try IdToken(raw: raw) }) else { return }
        _ = (token.iss, token.aud, token.exp, token.nbf, token.iat, token.nonce, token.tid, token.oid, token.sub)
        _ = (token.preferredUsername, token.name, token.policy, token.localAccountId, token.algorithm, token.keyId)
        let issuers = ["https://login.microsoftonline.com/{tenantid}/v2.0",
                       "https://login.microsoftonline.com/\(FuzzFixtures.tenant)/v2.0"]
        for (issuer, nonce) in [(issuers[0], FuzzFixtures.nonce), (issuers[1], nil)] {
            let accepted = try fuzzExpectingTypedErrors("IdTokenValidator.validate") { () -> Bool in
                try IdTokenValidator.validate(token, expectedIssuer: issuer, clientId: FuzzFixtures.clientId,
                                              nonce: nonce, now: FuzzFixtures.now)
                return true
            } ?? false
            guard accepted else { continue }
            // What an accepted token must satisfy whatever else it holds (OIDC Core §3.1.3.7).
            try fuzzCheck(token.aud.contains(FuzzFixtures.clientId), "accepted an id token whose aud lacks the client id")
            try fuzzCheck(token.iss != nil && token.iss == IdTokenValidator.resolvedIssuer(issuer, tid: token.tid),
                          "accepted an id token from another issuer")
            try fuzzCheck(token.exp.map { $0 > FuzzFixtures.now.addingTimeInterval(-IdTokenValidator.defaultClockSkew) } == true,
                          "accepted an expired id token or one without exp")
            if let nonce { try fuzzCheck(token.nonce == nonce, "accepted an id token with another nonce") }
        }
    }

    // MARK: client_info

    /// The input as `client_info` text, and base64url-encoded (so mutations reach the JSON).
    static func clientInfo(_ data: Data) throws {
        for encoded in [String(decoding: data, as: UTF8.self), Base64URL.encode(data)] {
            guard let info = try fuzzExpectingTypedErrors("ClientInfo(encoded:)", { try ClientInfo(encoded: encoded) })
            else { continue }
            try fuzzCheck(!info.uid.isEmpty && !info.utid.isEmpty, "accepted client_info without uid or utid")
            try fuzzCheck(info.homeAccountId == info.uid + "." + info.utid, "the home account id is not uid.utid")
        }
    }

    // MARK: Token endpoint

    /// The input as a token endpoint body: the success shape, and the OAuth error shape with its MSAL error.
    /// The authority a fuzzed device token is said to come from.
    static let deviceTokenAuthority = try? MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(FuzzFixtures.tenant)")!)

    static func tokenResponse(_ data: Data) throws {
        if let response = try fuzzExpectingTypedErrors("TokenResponse.parse", {
            try TokenResponse.parse(data, correlationId: FuzzFixtures.correlationId)
        }) {
            try fuzzCheck(response.accessToken.map { !$0.isEmpty } ?? true, "an empty access_token was taken as a token")
            try fuzzCheck(response.scopes?.allSatisfy { !$0.isEmpty } ?? true, "scope holds an empty scope")
        }
        if let body = OAuthErrorBody.parse(data) {
            try fuzzCheck(!body.error.isEmpty, "an error body without error was read")
            let error = body.msalError(httpStatus: 400, headers: ["Content-Type": "application/json"],
                                       correlationId: FuzzFixtures.correlationId)
            _ = error.description
        }
        // The same bytes as the device-token grant's two answers: the `srv_challenge` nonce, and the device's token
        // (never a user's refresh or id token).
        if let nonce = try fuzzExpectingTypedErrors("DeviceTokenRequest.nonce", {
            try DeviceTokenRequest.nonce(from: data, correlationId: FuzzFixtures.correlationId)
        }) {
            try fuzzCheck(!nonce.isEmpty && nonce.utf8.count <= 4096, "an empty or oversized nonce was taken")
        }
        if let authority = deviceTokenAuthority, let result = try fuzzExpectingTypedErrors("DeviceTokenRequest.result", {
            try DeviceTokenRequest.result(from: data, requestedScopes: ["https://graph.microsoft.com/.default"],
                                          authority: authority, now: FuzzFixtures.now, correlationId: FuzzFixtures.correlationId)
        }) {
            try fuzzCheck(!result.accessToken.isEmpty, "a device token answer without an access token was taken")
            // (A token of a few characters may appear in the description's other fields by chance.)
            try fuzzCheck(result.accessToken.count < 32 || !String(describing: result).contains(result.accessToken),
                          "the device token's description shows it")
        }
        // The same bytes as the response's `Date` and `Retry-After` headers (RFC 9110 HTTP dates).
        let header = String(decoding: data.prefix(256), as: UTF8.self)
        if let date = HTTPDate.parse(header) {
            // Four-digit years only: year 0 to 9999.
            try fuzzCheck(date.timeIntervalSince1970 >= -62_167_219_200 && date.timeIntervalSince1970 < 253_402_300_800,
                          "an HTTP date outside years 0-9999 was read")
        }
        let response = MSALHTTPResponse(statusCode: 429, headers: ["Retry-After": header])
        if let delay = TokenEndpointClient.retryAfter(response, now: FuzzFixtures.now) {
            try fuzzCheck(delay.isFinite && delay >= 0, "Retry-After gave a negative or infinite delay")
        }
        try responseHead(data)
    }

    /// The same bytes as the response heads the libcurl transport receives (interim and proxy heads included): every
    /// field has a token name and a value without CR, LF or NUL, and the fields written back as one head read back
    /// the same.
    static func responseHead(_ data: Data) throws {
        let fields = CurlResponseHead.fields(data)
        for field in fields {
            try fuzzCheck(!field.name.isEmpty && field.name.utf8.allSatisfy(CurlResponseHead.isTokenByte),
                          "a header name that is not a token")
            try fuzzCheck(!field.value.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }, "a header value that splits")
        }
        // Values as read are valid UTF-8 (undecodable bytes became U+FFFD), so a written head decodes to itself.
        let written = "HTTP/1.1 200 OK\r\n" + fields.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
        let again = CurlResponseHead.fields(Data(written.utf8))
        let names: [String] = fields.map { $0.name }, values: [String] = fields.map { $0.value }
        try fuzzCheck(again.map { $0.name } == names && again.map { $0.value } == values,
                      "a head written back reads differently")
    }

    // MARK: Device code

    /// The input as a device authorization response (RFC 8628 §3.2).
    static func deviceCode(_ data: Data) throws {
        guard let code = try fuzzExpectingTypedErrors("MSALDeviceCode.parse", {
            try MSALDeviceCode.parse(data, now: FuzzFixtures.now, correlationId: FuzzFixtures.correlationId)
        }) else { return }
        try fuzzCheck(!code.userCode.isEmpty && !code.deviceCode.isEmpty, "accepted a device code answer without codes")
        try fuzzCheck(code.interval.isFinite && code.interval >= 1, "the polling interval is \(code.interval)")
        try fuzzCheck(code.expiresIn.isFinite && code.expiresIn >= 0, "expires_in is \(code.expiresIn)")
        _ = code.description
    }

    // MARK: Authorization response

    /// The request whose response the harness reads.
    static let authorizationRequest = AuthorizationRequest(
        authorizationEndpoint: URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!,
        clientId: FuzzFixtures.clientId, scopes: ["User.Read"], state: FuzzFixtures.state, nonce: FuzzFixtures.nonce,
        codeVerifier: "verifier", codeChallenge: "challenge", prompt: .selectAccount, loginHint: nil, domainHint: nil,
        claims: nil, responseMode: nil, extraQueryParameters: [:], correlationId: FuzzFixtures.correlationId,
        instanceAware: false)

    /// The input as the redirect URL a user agent reports, and as a query / `form_post` body as the loopback listener
    /// decodes it; a code is only ever taken with the request's `state` and without an error.
    static func authorizationResponse(_ data: Data) throws {
        let text = String(decoding: data, as: UTF8.self)
        if let url = URL(string: text) {
            try readAuthorization(MSALWebAuthenticationResponse(redirectUri: "http://localhost", callbackURL: url))
        }
        if let parameters = FormDecoding.parse(Substring(text)) {
            try readAuthorization(MSALWebAuthenticationResponse(redirectUri: "http://localhost", parameters: parameters))
        }
    }

    private static func readAuthorization(_ response: MSALWebAuthenticationResponse) throws {
        guard let outcome = try fuzzExpectingTypedErrors("AuthorizationRequest.read", {
            try authorizationRequest.read(response)
        }) else { return }
        switch outcome {
        case .code(let code, _):
            try fuzzCheck(!code.isEmpty, "took an empty code")
            try fuzzCheck(response.parameters["state"] == FuzzFixtures.state, "took a code without the request's state")
            try fuzzCheck((response.parameters["error"] ?? "").isEmpty, "took a code from an error response")
        }
    }

    // MARK: Discovery, metadata and keys

    /// Id tokens with made-up signatures, for each algorithm a fuzzed key set may hold.
    static let forgedTokens: [IdToken] = ["RS256", "ES256", "none", "HS256"].compactMap { alg in
        let header = Base64URL.encode(Data("{\"alg\":\"\(alg)\",\"kid\":\"k1\"}".utf8))
        let payload = Base64URL.encode(Data("{\"sub\":\"s\",\"aud\":\"\(FuzzFixtures.clientId)\"}".utf8))
        let signature = Base64URL.encode(Data(repeating: 0x5A, count: alg == "ES256" ? 64 : 256))
        return try? IdToken(raw: "\(header).\(payload).\(signature)")
    }

    /// The input as an instance discovery answer (HTTP 200 and 400), an OpenID configuration and a JWKS document.
    static func discovery(_ data: Data) throws {
        for status in [200, 400] {
            guard let answer = try fuzzExpectingTypedErrors("InstanceDiscovery.parse", {
                try InstanceDiscovery.parse(statusCode: status, body: data)
            }) else { continue }
            if case .valid(let entries) = answer {
                try fuzzCheck(status == 200, "a discovery answer with HTTP \(status) was taken as valid")
                for entry in entries {
                    try fuzzCheck(!entry.aliases.isEmpty, "an alias group without aliases")
                    try fuzzCheck(entry.aliases.allSatisfy { $0 == $0.lowercased() }, "aliases are not lower-cased")
                    try fuzzCheck(entry.preferredCache == entry.preferredCache.lowercased()
                                  && entry.preferredNetwork == entry.preferredNetwork.lowercased(),
                                  "preferred hosts are not lower-cased")
                }
            }
        }
        if let metadata = try fuzzExpectingTypedErrors("OpenIDMetadata(json:)", { try OpenIDMetadata(json: data) }) {
            try fuzzCheck(!metadata.issuer.isEmpty, "accepted metadata without an issuer")
            let endpoints = [metadata.authorizationEndpoint, metadata.tokenEndpoint]
                + [metadata.deviceAuthorizationEndpoint, metadata.endSessionEndpoint, metadata.jwksURI].compactMap { $0 }
            for endpoint in endpoints {
                let scheme = endpoint.scheme?.lowercased()
                try fuzzCheck(scheme == "https"
                              || (scheme == "http" && AuthorityDescriptor.isLoopbackHost(endpoint.host ?? "")),
                              "accepted an endpoint that is neither https nor loopback http")
            }
        }
        if let verifier = try fuzzExpectingTypedErrors("IdTokenSignatureVerifier(jwks:)", {
            try IdTokenSignatureVerifier(jwks: data)
        }) {
            // No key set makes a forged signature verify.
            for forged in forgedTokens {
                let verified = try fuzzExpectingTypedErrors("IdTokenSignatureVerifier.verify") { () -> Bool in
                    try verifier.verify(forged, algorithms: ["RS256", "ES256"])
                    return true
                } ?? false
                try fuzzCheck(!verified, "a forged signature verified (alg \(forged.algorithm ?? "-"))")
            }
        }
    }
}
