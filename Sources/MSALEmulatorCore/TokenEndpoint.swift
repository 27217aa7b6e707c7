import MSALSupport
import Crypto
import Foundation

extension EmulatorCore {
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

    /// `POST /{tenant}/oauth2/v2.0/token`.
    func token(_ reference: TenantReference, _ request: EmulatorRequest) -> EmulatorResponse {
        do {
            let context = try resolveContext(tenantSegment: reference.segment, policyName: reference.policy, tfp: reference.tfp)
            guard let grantType = request.form["grant_type"] else { throw EntraError.missing("grant_type") }
            if grantCounts.count < 64 || grantCounts[grantType] != nil { grantCounts[grantType, default: 0] += 1 }
            // The device's own requests carry no client authentication: the device key signs them.
            if grantType == "srv_challenge" { return .json(serverChallenge(), headers: [("client-request-id", request.correlationId)]) }
            if grantType == EmulatorCore.jwtBearerGrant, request.form["request"] != nil, request.form["assertion"] == nil {
                return .json(try deviceTokenGrant(context, request), headers: [("client-request-id", request.correlationId)])
            }
            let client = try authenticateClient(request, context: context)
            let app = client.app
            let popKeyId = try requestedPoPKeyId(request)
            // A tenant requiring a compliant device challenges a client that proves devices (PKeyAuth) before the
            // grant is redeemed (the code stays usable for the answer's request).
            var provenDevice: String?
            if ["authorization_code", "refresh_token"].contains(grantType), asksDeviceProof(context, request) {
                guard let answer = request.headers["authorization"], answer.lowercased().hasPrefix("pkeyauth") else {
                    return tokenDeviceChallenge(context, request)
                }
                provenDevice = try deviceProven(by: answer, audience: "\(request.baseURL)/\(request.segments.joined(separator: "/"))")
            }
            var grant: Grant
            switch grantType {
            case "authorization_code": grant = try authorizationCodeGrant(app, context, request)
            case "refresh_token": grant = try refreshTokenGrant(app, context, request)
            case EmulatorCore.deviceCodeGrant: grant = try deviceCodeGrant(app, context, request)
            case "password" where request.form["continuation_token"] != nil:
                grant = try nativeAuthPasswordGrant(app, context, request)
            case "oob": grant = try nativeAuthCodeGrant(app, context, request)
            case "mfa_oob": grant = try mfaCodeGrant(app, context, request)
            case "continuation_token": grant = try nativeAuthContinuationGrant(app, context, request)
            case "password": grant = try passwordGrant(app, context, request)
            case EmulatorCore.jwtBearerGrant: grant = try onBehalfOfGrant(client, context, request)
            case "client_credentials":
                return .json(try clientCredentialsGrant(client, context, request, popKeyId: popKeyId),
                             headers: [("client-request-id", request.correlationId)])
            default:
                throw EntraError(error: "unsupported_grant_type", code: 70003, message: "The app requested an unsupported grant type '\(grantType.prefix(128))'.")
            }
            grant.clientAuthenticationClass = client.authenticationClass
            grant.popKeyId = popKeyId
            if grant.deviceId == nil, let provenDevice, broker.registration?.tenantId == grant.tenant.id {
                grant.deviceId = provenDevice
            }
            try enforceConditionalAccess(grant, grantType: grantType)
            noteClaims(request.form["claims"], into: &grant)
            return .json(try issueTokens(grant), headers: [("client-request-id", request.correlationId)])
        } catch let error as EntraError {
            return error.response(request, clock: clock)
        } catch {
            return EntraError(error: "server_error", code: 90014, message: "The token could not be issued.", status: 400).response(request, clock: clock)
        }
    }

    func parseScopes(_ request: EmulatorRequest, app: EmulatedApplication, required: Bool) throws(EntraError) -> RequestedScopes? {
        guard let text = request.form["scope"] else {
            if required { throw EntraError.missing("scope") }
            return nil
        }
        let scopes = try RequestedScopes.parse(text, apis: config.apis, applications: config.applications, clientId: app.clientId)
        if scopes.resources.count > 1 {
            throw EntraError(error: "invalid_scope", code: 28000, message: "Provided value for the input parameter scope is not valid because it contains more than one resource. Scope \(text) is not valid.")
        }
        return scopes
    }

    func authorizationCodeGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        guard let code = request.form["code"] else { throw EntraError.missing("code") }
        guard let record = codes[code] else {
            throw EntraError(error: "invalid_grant", code: 9002313, message: "Invalid request. Request is malformed or invalid. The provided value for the 'code' parameter is not valid.", suberror: "bad_token")
        }
        guard !record.redeemed else {
            throw EntraError(error: "invalid_grant", code: 54005, message: "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.")
        }
        guard record.expiresAt > now else {
            throw EntraError(error: "invalid_grant", code: 70008, message: "The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource.")
        }
        guard record.clientId == app.clientId else {
            throw EntraError(error: "invalid_grant", code: 70000, message: "The provided authorization code was issued to a different client.")
        }
        guard let redirectURI = request.form["redirect_uri"] else { throw EntraError.missing("redirect_uri") }
        guard redirectURI == record.redirectURI else {
            throw EntraError(error: "invalid_grant", code: 70000, message: "The provided value for the 'redirect_uri' is not valid. The value must exactly match the redirect URI used to obtain the authorization code.")
        }
        if let challenge = record.codeChallenge {
            guard let verifier = request.form["code_verifier"] else { throw EntraError.missing("code_verifier") }
            let computed = record.codeChallengeMethod == "S256" ? Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) : verifier
            guard computed == challenge else {
                throw EntraError(error: "invalid_grant", code: 501481, message: "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
            }
        }
        if let tenant = context.tenant, tenant.id != record.tenantId {
            throw EntraError(error: "invalid_grant", code: 700005, message: "Provided Authorization Code is intended to use against other tenant, thus rejected.")
        }
        guard let user = user(id: record.userId), let tenant = config.tenants.first(where: { $0.id == record.tenantId }) else {
            throw EntraError(error: "invalid_grant", code: 50034, message: "The user account does not exist in the directory.")
        }
        try checkNestedAuthRedemption(issuedThrough: record.brokerClientId, request)
        codes[code]?.redeemed = true
        var scopes = try parseScopes(request, app: app, required: false) ?? record.scopes
        scopes.oidc.formUnion(record.scopes.oidc.intersection(["openid"]))
        let granted = record.scopes.full == scopes.full ? record.granted : effectiveScopes(scopes, userId: user.objectId, app: app)
        var grant = Grant(
            app: app, user: user, tenant: tenant, policy: record.policy, scopes: scopes, granted: granted, nonce: record.nonce,
            authTime: record.authTime, wantsClientInfo: request.form["client_info"] == "1", baseURL: request.baseURL
        )
        grant.capabilities = record.capabilities
        grant.deviceId = record.deviceId
        grant.brokerClientId = record.brokerClientId
        return grant
    }

    func refreshTokenGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        guard let token = request.form["refresh_token"] else { throw EntraError.missing("refresh_token") }
        guard let record = refreshTokens[token] else {
            throw EntraError(
                error: "invalid_grant", code: 50173,
                message: "The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.",
                suberror: "bad_token"
            )
        }
        guard record.expiresAt > now else {
            refreshTokens.removeValue(forKey: token)
            throw EntraError(error: "invalid_grant", code: 700082, message: "The refresh token has expired due to inactivity. The token was issued on an earlier date and was inactive for too long.", suberror: "bad_token")
        }
        guard record.clientId == app.clientId || (record.familyId != nil && record.familyId == app.familyId) else {
            throw EntraError(error: "invalid_grant", code: 70000, message: "The refresh token was issued to a different client.", suberror: "client_mismatch")
        }
        try checkNestedAuthRedemption(issuedThrough: record.brokerClientId, request)
        guard let user = user(id: record.userId) else {
            throw EntraError(error: "invalid_grant", code: 50034, message: "The user account does not exist in the directory.")
        }
        if let policy = context.policy, record.policy?.name.lowercased() != policy.name.lowercased() {
            throw EntraError(error: "invalid_grant", code: 90080, message: "The provided grant was issued for a different policy.", prefix: "AADB2C")
        }
        let tenant = context.policy == nil ? tokenTenant(for: user, in: context) : config.tenants.first { $0.id == record.tenantId }
        guard let tenant else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "User account from identity provider does not exist in tenant.")
        }
        guard let scopes = try parseScopes(request, app: app, required: true) else { throw EntraError.missing("scope") }
        let needed = scopesNeedingConsent(scopes, userId: user.objectId, app: app)
        if !needed.isEmpty { throw EntraError.consentRequired(needed, clientId: app.clientId) }
        refreshTokens.removeValue(forKey: token)
        var grant = Grant(
            app: app, user: user, tenant: tenant, policy: record.policy, scopes: scopes,
            granted: effectiveScopes(scopes, userId: user.objectId, app: app), nonce: nil, authTime: record.authTime,
            wantsClientInfo: request.form["client_info"] == "1", baseURL: request.baseURL
        )
        grant.deviceId = record.deviceId
        grant.brokerClientId = record.brokerClientId
        return grant
    }

    func deviceCodeGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        guard let code = request.form["device_code"] ?? request.form["code"] else { throw EntraError.missing("device_code") }
        guard var record = deviceCodes[code], record.clientId == app.clientId else {
            throw EntraError(error: "invalid_grant", code: 70000, message: "The provided value for the input parameter 'device_code' is not valid.")
        }
        guard record.expiresAt > now else {
            throw EntraError(error: "expired_token", code: 70020, message: "The provided value for the input parameter 'device_code' is not valid. This device code has expired.")
        }
        switch record.status {
        case .pending:
            let tooFast = record.lastPoll.map { now.timeIntervalSince($0) < Double(record.interval) / 2 } ?? false
            record.lastPoll = now
            deviceCodes[code] = record
            if tooFast {
                throw EntraError(error: "slow_down", code: 70016, message: "OAuth 2.0 device flow error. Polling too frequently; slow down.")
            }
            throw EntraError(error: "authorization_pending", code: 70016, message: "OAuth 2.0 device flow error. Authorization is pending. Continue polling.")
        case .declined:
            throw EntraError(error: "authorization_declined", code: 70000, message: "The user declined the authentication request.")
        case .redeemed:
            throw EntraError(error: "invalid_grant", code: 54005, message: "The device code was already redeemed.")
        case .approved(let userId, let granted, let authTime):
            guard let user = user(id: userId), let tenant = tokenTenant(for: user, in: record.context) else {
                throw EntraError(error: "invalid_grant", code: 50034, message: "The user account does not exist in the directory.")
            }
            deviceCodes[code]?.status = .redeemed
            return Grant(
                app: app, user: user, tenant: tenant, policy: nil, scopes: record.scopes, granted: granted, nonce: nil,
                authTime: authTime, wantsClientInfo: request.form["client_info"] == "1", baseURL: request.baseURL
            )
        }
    }

    func passwordGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        guard let username = request.form["username"] else { throw EntraError.missing("username") }
        guard let password = request.form["password"] else { throw EntraError.missing("password") }
        guard let scopes = try parseScopes(request, app: app, required: true) else { throw EntraError.missing("scope") }
        guard let user = user(named: username), user.password == password else {
            throw EntraError(error: "invalid_grant", code: 50126, message: "Error validating credentials due to invalid username or password.")
        }
        guard let tenant = tokenTenant(for: user, in: context) else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "User account '\(username)' from identity provider does not exist in tenant.")
        }
        let needed = scopesNeedingConsent(scopes, userId: user.objectId, app: app)
        if !needed.isEmpty { throw EntraError.consentRequired(needed, clientId: app.clientId) }
        return Grant(
            app: app, user: user, tenant: tenant, policy: nil, scopes: scopes, granted: effectiveScopes(scopes, userId: user.objectId, app: app),
            nonce: nil, authTime: now, wantsClientInfo: request.form["client_info"] == "1", baseURL: request.baseURL
        )
    }
}
