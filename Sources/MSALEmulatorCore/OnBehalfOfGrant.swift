import Foundation

extension EmulatorCore {
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` with `requested_token_use=on_behalf_of`: a middle-tier
    /// API (a confidential client) trades the user's access token it received for a token to a downstream API.
    ///
    /// The assertion must be an unexpired access token this emulator signed, addressed to the calling app (its
    /// client id or an app id URI it exposes), for a user; the downstream scopes must be consented for the app.
    func onBehalfOfGrant(_ client: ClientAuthentication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        guard client.method != .none else { throw EntraError.credentialRequired }
        guard let use = request.form["requested_token_use"] else { throw EntraError.missing("requested_token_use") }
        guard use == "on_behalf_of" else {
            throw EntraError(error: "invalid_request", code: 90014, message: "The provided value for the input parameter 'requested_token_use' is not valid. The jwt-bearer grant supports 'on_behalf_of'.")
        }
        guard let assertion = request.form["assertion"] else { throw EntraError.missing("assertion") }
        let parsed = try ParsedJWT(assertion)
        guard let claims = keys.verify(assertion) else {
            let known = (parsed.header["kid"] as? String).map { keys.knows(kid: $0) } ?? false
            let reason = known ? "The provided signature value did not match the expected signature value." : "The key was not found."
            throw EntraError(error: "invalid_grant", code: 50013, message: "Assertion failed signature validation. [Reason - \(reason)]")
        }
        let now = self.now.timeIntervalSince1970
        let exp = parsed.number("exp") ?? 0
        if !isCurrent(exp: exp, nbf: parsed.number("nbf"), tokenId: claims["uti"] as? String, skew: EmulatorCore.assertionSkew) {
            throw EntraError(
                error: "invalid_grant", code: 500133,
                message: "Assertion is not within its valid time range. Ensure that the access token is not expired before using it for user assertion, or request a new token. Current time: \(EmulatorCore.isoTime(now)), expiry time of assertion \(EmulatorCore.isoTime(exp))."
            )
        }
        let app = client.app
        let audience = claims["aud"] as? String ?? ""
        guard acceptedOnBehalfOfAudiences(app).contains(audience.lowercased()) else {
            throw EntraError(
                error: "invalid_grant", code: 500131,
                message: "Assertion audience does not match the Client app presenting the assertion. The audience in the assertion was '\(audience.prefix(256))' and the expected audience is '\(app.clientId)' or one of the Application Uris of this application with App ID '\(app.clientId)'(\(app.displayName)). The downstream client must request a token for the expected audience (the application that made the OBO request) and this application should use that token as the assertion."
            )
        }
        guard claims["idtyp"] as? String != "app", claims["scp"] != nil else {
            let caller = claims["appid"] as? String ?? claims["azp"] as? String ?? app.clientId
            throw EntraError(error: "unauthorized_client", code: 7000114, message: "Application '\(caller.prefix(64))' is not allowed to make application on-behalf-of calls.")
        }
        guard let userId = claims["oid"] as? String, let user = user(id: userId) else {
            throw EntraError(error: "invalid_grant", code: 50034, message: "The user account does not exist in the directory.")
        }
        let assertionTenant = config.tenants.first { $0.id == claims["tid"] as? String }
        guard assertionTenant?.kind != .b2c else {
            throw EntraError(error: "invalid_grant", code: 90083, message: "Request is unsupported. The on-behalf-of flow is not available for Azure AD B2C tokens.")
        }
        let tenant = context.tenant == nil ? assertionTenant : tokenTenant(for: user, in: context)
        guard let tenant else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "User account '\(user.username)' from identity provider does not exist in tenant.")
        }
        guard let scopes = try parseScopes(request, app: app, required: true) else { throw EntraError.missing("scope") }
        let needed = scopesNeedingConsent(scopes, userId: user.objectId, app: app)
        if !needed.isEmpty { throw EntraError.consentRequired(needed, clientId: app.clientId) }
        return Grant(
            app: app, user: user, tenant: tenant, policy: nil, scopes: scopes,
            granted: effectiveScopes(scopes, userId: user.objectId, app: app), nonce: nil, authTime: self.now,
            wantsClientInfo: request.form["client_info"] == "1", baseURL: request.baseURL,
            clientAuthenticationClass: client.authenticationClass
        )
    }

    /// The audiences an on-behalf-of assertion may have for `app`: its client id, `api://{clientId}` and the app id
    /// URI of every API whose application id is the app's.
    func acceptedOnBehalfOfAudiences(_ app: EmulatedApplication) -> Set<String> {
        var accepted: Set<String> = [app.clientId.lowercased(), "api://\(app.clientId.lowercased())"]
        for api in config.apis where api.appId.lowercased() == app.clientId.lowercased() {
            accepted.insert(api.identifier.lowercased())
        }
        return accepted
    }
}
