import MSALSupport
import Foundation

/// The emulated broker's token methods: the request's `authParameters` read and checked as the identity platform
/// would (client, authority, scopes, consent), the token issued for the device, and answered as a
/// `brokerTokenResponse`.
extension EmulatorCore {
    /// What a token request names, checked.
    struct BrokerTokenRequest {
        var app: EmulatedApplication
        var context: TenantContext
        var scopes: RequestedScopes
        var claims: String?
        var parameters: [String: Any]
        /// The authority's origin, when it names its port.
        var origin: String?
    }

    func brokerTokenRequest(_ object: [String: Any]) throws -> BrokerTokenRequest {
        guard let parameters = object["authParameters"] as? [String: Any] else {
            throw BrokerFailure(status: BrokerFailure.apiContractViolation, errorCode: 0, context: "The request has no authParameters.")
        }
        guard let clientId = parameters["clientId"] as? String, let app = application(clientId), app.isPublicClient else {
            throw EntraError.unknownClient(String(((parameters["clientId"] as? String) ?? "").prefix(64)))
        }
        // The authority arrives as `https://<host>/<tenant>` (the port may be dropped on the way, as Microsoft's
        // client drops it): only its tenant matters here.
        guard let text = parameters["authority"] as? String, let url = URL(string: text),
              let segment = url.path.split(separator: "/").first.map(String.init) else {
            throw BrokerFailure(status: BrokerFailure.authorityUntrusted, errorCode: 0, context: "The request has no usable authority.")
        }
        if segment.lowercased() == "adfs" || segment.lowercased() == "tfp" {
            throw BrokerFailure(status: BrokerFailure.incorrectConfiguration, errorCode: 0, context: "Broker does not support ADFS or B2C requests.")
        }
        let context = try resolveContext(tenantSegment: segment, policyName: nil, tfp: false)
        // Tokens name the emulator the client reached (its scheme and port), as the token endpoint's do; an authority
        // without its port (Microsoft's client drops it) gets the emulator's HTTPS base.
        let origin = Self.origin(ofAuthority: url)
        if context.tenant?.kind == .b2c {
            throw BrokerFailure(status: BrokerFailure.incorrectConfiguration, errorCode: 0, context: "Broker does not support B2C requests.")
        }
        let asked = (parameters["requestedScopes"] as? [Any] ?? []).compactMap { $0 as? String }.prefix(64)
        var scopes = try RequestedScopes.parse(asked.joined(separator: " "), apis: config.apis,
                                               applications: config.applications, clientId: app.clientId)
        if scopes.resources.count > 1 {
            throw EntraError(error: "invalid_scope", code: 28000, message: "The scopes name more than one resource.")
        }
        // The broker always signs the user in (an id token), and keeps the refresh token itself.
        scopes.oidc.formUnion(["openid", "profile"])
        scopes.oidc.remove("offline_access")
        let claims = (parameters["decodedClaims"] as? String).flatMap { $0.isEmpty ? nil : String($0.prefix(8192)) }
        return BrokerTokenRequest(app: app, context: context, scopes: scopes, claims: claims, parameters: parameters,
                                  origin: origin)
    }

    /// `acquireTokenSilently`: a token for a signed-in account (or, for a sign-in with no account, the device's
    /// one account that can sign in there), else `InteractionRequired`.
    func brokerSilent(_ object: [String: Any], issuerBase: String) throws -> [String: Any] {
        let request = try brokerTokenRequest(object)
        var user = try brokerUser(request.parameters["account"], required: false)
        if user == nil {
            user = broker.accounts.compactMap { self.user(id: $0.userId) }
                .first { tokenTenant(for: $0, in: request.context) != nil }
        }
        guard let user, let signedInAt = broker.signedIn(user.objectId) else {
            throw BrokerFailure(status: BrokerFailure.interactionRequired, errorCode: 50076,
                                context: "No account is signed in on this device for this request: interaction required.")
        }
        if let revocation = sessionRevocations[user.objectId], Double(revocation.revokedAt) >= signedInAt.timeIntervalSince1970 {
            throw BrokerFailure(status: BrokerFailure.interactionRequired, errorCode: 50173,
                                context: "AADSTS50173: The user's session was revoked; the user must sign in again.")
        }
        let needed = scopesNeedingConsent(request.scopes, userId: user.objectId, app: request.app)
        if !needed.isEmpty { throw EntraError.consentRequired(needed, clientId: request.app.clientId) }
        return try brokerIssue(request, user: user, authTime: signedInAt, issuerBase: issuerBase)
    }

    /// `acquireTokenInteractively`: the approver (the auto-approve user by default) signs a user in on the device.
    func brokerInteractive(_ object: [String: Any], correlationId: String, issuerBase: String,
                           approve: EmulatedBrokerApprover?) async throws -> [String: Any] {
        let request = try brokerTokenRequest(object)
        let account = request.parameters["account"] as? [String: Any]
        let hint = ((request.parameters["username"] as? String).flatMap { $0.isEmpty ? nil : $0 })
            ?? (account?["username"] as? String)
        let prompt = EmulatedBrokerPrompt(application: request.app.displayName, clientId: request.app.clientId,
                                          scopes: request.scopes.full, loginHint: hint,
                                          autoApproveUsername: config.autoApproveUsername)
        let chosen: String?
        if let approve {
            chosen = await approve(prompt)
        } else if let auto = config.autoApproveUsername {
            chosen = auto
        } else {
            throw BrokerFailure(status: BrokerFailure.incorrectConfiguration, errorCode: 0,
                                context: "No one approves sign-ins on the emulated broker: start it with --auto-approve <user> (configuration: autoApproveUsername), or on a terminal.")
        }
        if broker.cancelled.remove(correlationId.lowercased()) != nil || chosen == nil {
            throw BrokerFailure(status: BrokerFailure.userCanceled, errorCode: 0, context: "User canceled the sign-in.")
        }
        guard let user = user(named: chosen ?? "") else {
            throw EntraError(error: "invalid_grant", code: 50034, message: "The user account does not exist in the directory.")
        }
        guard tokenTenant(for: user, in: request.context) != nil else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "User account '\(user.username)' from identity provider does not exist in tenant.")
        }
        recordConsent(request.scopes.full.filter { !$0.hasSuffix("/.default") }, userId: user.objectId, clientId: request.app.clientId)
        broker.signIn(user.objectId, at: now)
        return try brokerIssue(request, user: user, authTime: now, issuerBase: issuerBase)
    }

    /// Issues the device-bound tokens and answers them as a `brokerTokenResponse`.
    func brokerIssue(_ request: BrokerTokenRequest, user: EmulatedUser, authTime: Date, issuerBase: String) throws -> [String: Any] {
        guard let tenant = tokenTenant(for: user, in: request.context) else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "User account '\(user.username)' from identity provider does not exist in tenant.")
        }
        let account = brokerAccount(user, issuerBase)
        let homeAccountId = account["homeAccountId"] as? String ?? ""
        let pop = Self.popParameters(request.parameters)
        let scopeKey = request.scopes.full.sorted().joined(separator: " ")
        if let pop, Self.namesCapabilitiesOnly(request.claims),
           let kept = try keptPoPAnswer(pop: pop, clientId: request.app.clientId, homeAccountId: homeAccountId,
                                        scopes: scopeKey) {
            return kept
        }
        var grant = Grant(app: request.app, user: user, tenant: tenant, policy: nil, scopes: request.scopes,
                          granted: effectiveScopes(request.scopes, userId: user.objectId, app: request.app), nonce: nil,
                          authTime: authTime, wantsClientInfo: true, baseURL: request.origin ?? issuerBase)
        grant.deviceId = broker.deviceId
        grant.popKeyId = try pop.map(brokerPoPKeyId)
        noteClaims(request.claims, into: &grant)
        let body = try issueTokens(grant)
        let lifetime = (body["expires_in"] as? Int) ?? config.lifetimes.accessToken
        let expiresOn = Int64(issueTime.stamp + lifetime) * 1000
        var answer: [String: Any] = [
            "account": account,
            "accessToken": body["access_token"] as? String ?? "",
            "accessTokenType": 0,
            "expiresOn": expiresOn,
            "extendedExpiresOn": expiresOn,
            "idToken": body["id_token"] as? String ?? "",
            "clientInfo": body["client_info"] as? String ?? "",
            "accountId": user.objectId,
            "grantedScopes": body["scope"] as? String ?? "",
            "refreshToken": "",
            "responseProperties": [String: String](),
            "isAccessTokenSigned": false,
        ]
        if let pop, let keyId = grant.popKeyId {
            try completePoPAnswer(&answer, pop: pop, clientId: request.app.clientId, homeAccountId: homeAccountId,
                                  scopes: scopeKey, keyId: keyId,
                                  bound: (body["token_type"] as? String)?.lowercased() == "pop")
        }
        return answer
    }

    /// `acquirePrtSsoCookie`: an `x-ms-RefreshTokenCredential` cookie for the account, carrying the `sso_nonce` of
    /// `ssoUrl` (the shape of brokers after 2.0.1: `cookieItems`).
    func brokerSSOCookie(_ object: [String: Any], issuerBase: String) throws -> [String: Any] {
        let parameters = object["authParameters"] as? [String: Any] ?? [:]
        let user = try brokerUser(object["account"] ?? parameters["account"], required: true)!
        let ssoURL = (object["ssoUrl"] as? String) ?? (parameters["ssoUrl"] as? String) ?? ""
        let nonce = URLComponents(string: ssoURL)?.queryItems?.first { $0.name == "sso_nonce" }?.value
        var claims: [String: Any] = ["refresh_token": "1.EMU.PRT." + Base64URL.random(bytes: 24), "is_primary": "true",
                                     "iat": issueTime.stamp, "deviceid": broker.deviceId, "oid": user.objectId]
        if let nonce { claims["request_nonce"] = String(nonce.prefix(512)) }
        return ["cookieItems": [["cookieName": "x-ms-RefreshTokenCredential", "cookieContent": try keys.sign(claims)]],
                "account": brokerAccount(user, issuerBase)]
    }
}
