import MSALSupport
import Crypto
import Foundation

/// What a successful grant hands to ``EmulatorCore/issueTokens(_:)``.
struct Grant: Sendable {
    var app: EmulatedApplication
    var user: EmulatedUser
    var tenant: EmulatedTenant
    var policy: B2CPolicy?
    var scopes: RequestedScopes
    /// Full API scopes granted (consented), for the access token.
    var granted: [String]
    var nonce: String?
    var authTime: Date
    var wantsClientInfo: Bool
    var baseURL: String
    /// `azpacr`: how the client authenticated (0 public, 1 secret, 2 certificate).
    var clientAuthenticationClass = "0"
    /// Client capabilities (`xms_cc`), such as `cp1`: the access token carries them and can be revoked by a claims
    /// challenge (continuous access evaluation).
    var capabilities: [String] = []
    /// The device the tokens are bound to (a brokered sign-in): the access token carries it as `deviceid`, a refresh
    /// token keeps it.
    var deviceId: String? = nil
    /// The hub app of a nested app's grant: its refresh token is redeemed only through the hub.
    var brokerClientId: String? = nil
    /// The key the access token is bound to (`req_cnf`'s `kid`): proof of possession.
    var popKeyId: String? = nil
}

extension EmulatorCore {
    func issuer(baseURL: String, tenant: EmulatedTenant) -> String {
        tenant.kind == .b2c ? "\(baseURL)/\(tenant.id)/v2.0/" : "\(baseURL)/\(tenant.id)/v2.0"
    }

    /// `uid`/`utid` for `client_info`; B2C appends `-<policy>` to the uid.
    func clientInfo(user: EmulatedUser, policy: B2CPolicy?) -> String {
        let uid = policy.map { "\(user.objectId)-\($0.name.lowercased())" } ?? user.objectId
        return Base64URL.encode(json: ["uid": uid, "utid": user.homeTenantId])
    }

    /// Builds an Entra-shaped token response body and stores the new refresh token.
    func issueTokens(_ grant: Grant) throws -> [String: Any] {
        // `now` is the emulated time (records), `iat` the time written into the tokens (see EmulatorClock).
        let (now, iat) = issueTime
        let lifetimes = config.lifetimes
        let iss = issuer(baseURL: grant.baseURL, tenant: grant.tenant)
        let user = grant.user
        let isB2C = grant.tenant.kind == .b2c

        // Access token: one resource only.
        let resource = grant.scopes.primaryResource
        var atScopes = grant.granted.filter { RequestedScopes.split($0).resource == (resource ?? "") }
        let api = config.apis.first { $0.identifier == resource }
        let audience: String
        var scp: [String]
        var responseScopes: [String]
        if let api {
            // Graph and ARM tokens name their resource URI, as Entra's do; other APIs their application id.
            let byURI = api.identifier == EmulatorConfiguration.graphResource
                || api.identifier == EmulatorConfiguration.resourceManagerResource
            audience = byURI ? api.identifier : api.appId
            scp = atScopes.map { RequestedScopes.split($0).name }.filter { $0 != ".default" }
            responseScopes = atScopes.filter { !$0.hasSuffix("/.default") }.map { api.responseScope(RequestedScopes.split($0).name) }
            // A `.default` request is answered with the granted permissions and `{resource}/.default` itself, as
            // Entra answers it, so that clients find the cached token for the same request again.
            let asked = "\(api.identifier)/.default"
            if grant.scopes.full.contains(asked), !responseScopes.contains(asked) { responseScopes.append(asked) }
        } else if let resource, resource == grant.app.clientId {
            audience = grant.app.clientId
            scp = []
            responseScopes = [grant.app.clientId]
            atScopes = [grant.app.clientId]
        } else if isB2C {
            audience = grant.app.clientId
            scp = []
            responseScopes = []
        } else {
            audience = EmulatorConfiguration.graphResource
            scp = []
            responseScopes = []
        }
        let oidcOrder = ["openid", "profile", "email"].filter { grant.scopes.oidc.contains($0) }
        if !isB2C {
            scp = oidcOrder + scp
        }
        responseScopes = oidcOrder.filter { !isB2C || $0 == "openid" } + responseScopes
        if grant.scopes.oidc.contains("offline_access") { responseScopes.append("offline_access") }

        let accessTokenId = Base64URL.random(bytes: 16)
        recordIssue(accessTokenId)
        var accessClaims: [String: Any] = [
            "aud": audience, "iss": iss, "iat": iat, "nbf": iat, "exp": iat + lifetimes.accessToken,
            "azp": grant.app.clientId, "appid": grant.app.clientId, "azpacr": grant.clientAuthenticationClass, "name": user.displayName,
            "oid": user.objectId, "preferred_username": user.username, "sub": pairwiseSubject(user: user, clientId: grant.app.clientId),
            "tid": grant.tenant.id, "uti": accessTokenId, "ver": "2.0", "idtyp": "user",
            "rh": "0.emulator", "aio": Base64URL.random(bytes: 24),
        ]
        if !scp.isEmpty { accessClaims["scp"] = scp.joined(separator: " ") }
        if !grant.capabilities.isEmpty { accessClaims["xms_cc"] = grant.capabilities }
        if let deviceId = grant.deviceId { accessClaims["deviceid"] = deviceId }
        accessClaims[EmulatorCore.sessionGenerationClaim] = sessionGeneration(userId: user.objectId)
        if grant.tenant.kind == .organization { accessClaims["upn"] = user.username }
        if let policy = grant.policy { accessClaims["tfp"] = policy.name; accessClaims["sub"] = user.objectId }

        var body: [String: Any] = [
            "token_type": "Bearer",
            "scope": responseScopes.joined(separator: " "),
            "expires_in": lifetimes.accessToken,
            "ext_expires_in": lifetimes.accessToken,
            "refresh_in": max(lifetimes.accessToken / 2, 1),
        ]
        bind(&accessClaims, body: &body, keyId: grant.popKeyId)
        body["access_token"] = try keys.sign(accessClaims)
        if grant.scopes.oidc.contains("openid") {
            var idClaims: [String: Any] = [
                "aud": grant.app.clientId, "iss": iss, "iat": iat, "nbf": iat, "exp": iat + lifetimes.idToken,
                "name": user.displayName, "oid": user.objectId, "preferred_username": user.username,
                "sub": isB2C ? user.objectId : pairwiseSubject(user: user, clientId: grant.app.clientId),
                "tid": grant.tenant.id, "ver": "2.0", "uti": Base64URL.random(bytes: 16), "rh": "0.emulator",
                "auth_time": stamp(grant.authTime), "aio": Base64URL.random(bytes: 24),
            ]
            if let nonce = grant.nonce { idClaims["nonce"] = nonce }
            if grant.scopes.oidc.contains("email") || isB2C { idClaims["email"] = user.mail ?? user.username }
            if let policy = grant.policy {
                idClaims["tfp"] = policy.name
                idClaims["acr"] = policy.name.lowercased()
                idClaims["emails"] = [user.mail ?? user.username]
                idClaims["idp"] = "LocalAccount"
                idClaims.removeValue(forKey: "preferred_username")
                if let given = user.givenName { idClaims["given_name"] = given }
                if let family = user.surname { idClaims["family_name"] = family }
            }
            body["id_token"] = try keys.sign(idClaims)
        }
        if grant.scopes.oidc.contains("offline_access") {
            let token = "1.EMU." + Base64URL.random(bytes: 48)
            refreshTokens[token] = RefreshRecord(
                clientId: grant.app.clientId, familyId: grant.app.familyId, userId: user.objectId, tenantId: grant.tenant.id,
                policy: grant.policy, authTime: grant.authTime, expiresAt: now.addingTimeInterval(TimeInterval(lifetimes.refreshToken)),
                deviceId: grant.deviceId, brokerClientId: grant.brokerClientId
            )
            body["refresh_token"] = token
            if isB2C { body["refresh_token_expires_in"] = lifetimes.refreshToken }
        }
        if grant.wantsClientInfo { body["client_info"] = clientInfo(user: user, policy: grant.policy) }
        if let family = grant.app.familyId { body["foci"] = family }
        if isB2C {
            body["not_before"] = iat
            body["expires_on"] = iat + lifetimes.accessToken
            body.removeValue(forKey: "refresh_in")
            body.removeValue(forKey: "ext_expires_in")
        }
        prune()
        return body
    }

    /// Entra's `sub` is pairwise: stable per user and app.
    func pairwiseSubject(user: EmulatedUser, clientId: String) -> String {
        String(Base64URL.encode(Data(SHA256.hash(data: Data("\(user.objectId)|\(clientId)".utf8)))).prefix(43))
    }
}
