import MSALSupport
import Crypto
import _CryptoExtras
package import Foundation

/// Microsoft Authenticator's part of the app-to-app broker (iOS), emulated: to a request URL an app opens
/// (`msauthv2://broker?…`, message protocol 3) it answers the URL Authenticator opens back —
/// `<redirect URI>?msg_protocol_ver=3&response=<base64url>&hash=<HEX>` — with the form-encoded answer encrypted with
/// the request's broker key (AES-256-CBC, a zero IV, PKCS#7) and its upper-case hex SHA-256. Tokens are issued from
/// the emulator's directory for the emulated device (a `deviceid` claim; a refresh token bound to it), so they pass
/// the tenants' ``EmulatedConditionalAccess``.
extension EmulatorCore {
    /// The version the emulated Authenticator reports (`x-broker-app-ver`).
    static let authenticatorVersion = "6.8.0-emulator"

    /// The answer URL to an Authenticator request URL (`msauthv2://broker?…` or the universal link
    /// `https://login.microsoftonline.com/applebroker/msauthv2?…`); nil when the request cannot be answered at all
    /// (no redirect URI, no usable broker key, not protocol 3). `issuerBase` names the issuer when the authority has no port.
    package func authenticatorAnswer(_ request: URL, issuerBase: String, approve: EmulatedBrokerApprover? = nil) async -> URL? {
        let universalLink = request.scheme?.lowercased() == "https" && request.path.lowercased() == "/applebroker/msauthv2"
        guard request.absoluteString.utf8.count <= Self.brokerRequestLimit, request.scheme?.lowercased() == "msauthv2" || universalLink,
              let query = URLComponents(url: request, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
              let pairs = FormCoding.pairs(query, malformed: .reject, limit: 64) else { return nil }
        let fields = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard fields["msg_protocol_ver"] == "3", let redirectURI = fields["redirect_uri"], !redirectURI.isEmpty,
              let keyText = fields["broker_key"], let key = Base64URL.decode(keyText), key.count == 32 else { return nil }
        var answer: [(String, String)]
        do {
            answer = try await authenticatorTokens(fields, redirectURI: redirectURI, issuerBase: issuerBase, approve: approve)
        } catch let failure as BrokerFailure {
            // Authenticator reports the common core's errors (`MSIDAADV2BrokerResponse.m:44-84`): MSIDErrorDomain and
            // its codes (-51700 the user cancelled, -51119 an invalid redirect URI, -51100 anything else).
            let code = failure.status == BrokerFailure.userCanceled ? "-51700"
                : failure.status == BrokerFailure.incorrectConfiguration ? "-51119" : "-51100"
            answer = [("success", "0"), ("broker_error_domain", "MSIDErrorDomain"), ("broker_error_code", code),
                      ("error_description", failure.context)]
        } catch let error as EntraError {
            // An identity-platform refusal: the common core's OAuth error (`MSIDError.m:92-131`).
            answer = [("success", "0"), ("broker_error_domain", "MSIDOAuthErrorDomain"),
                      ("broker_error_code", String(Self.msidOAuthCode(error.error))),
                      ("error", error.error), ("error_description", "\(error.codeText): \(error.message)")]
            if let suberror = error.suberror { answer.append(("suberror", suberror)) }
        } catch {
            answer = [("success", "0"), ("broker_error_domain", "MSIDErrorDomain"), ("broker_error_code", "-51100")]
        }
        if let nonce = fields["broker_nonce"] { answer.append(("broker_nonce", nonce)) }
        if let correlation = fields["correlation_id"] { answer.append(("correlation_id", correlation)) }
        answer.append(("x-broker-app-ver", Self.authenticatorVersion))
        let plaintext = Data(FormCoding.encode(answer).utf8)
        guard let sealed = try? AES._CBC.encrypt(plaintext, using: SymmetricKey(data: key),
                                                 iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))) else { return nil }
        let hash = SHA256.hash(data: plaintext).map { String(format: "%02X", $0) }.joined()
        let separator = redirectURI.contains("?") ? "&" : "?"
        return URL(string: redirectURI + separator + FormCoding.encode([
            ("msg_protocol_ver", "3"), ("response", Base64URL.encode(Data(sealed))), ("hash", hash),
        ]))
    }

    /// The common core's code for an OAuth error string (`IdentityCore/src/MSIDError.m:92-131`).
    static func msidOAuthCode(_ error: String) -> Int {
        switch error.lowercased() {
        case "invalid_request": return -51410
        case "invalid_client": return -51411
        case "invalid_grant": return -51412
        case "invalid_scope": return -51413
        case "unauthorized_client": return -51414
        case "interaction_required": return -51115
        case "access_denied": return -51416
        case "server_error": return -51417
        default: return -51400
        }
    }

    /// Whether a redirect URI can be a broker's: Authenticator answers an app only at a custom-scheme redirect URI
    /// (`msauth.<bundle id>://auth`, or ADAL's `<scheme>://<bundle id>`), never a web one (MSAL for iOS/macOS's
    /// common core, `MSIDRedirectUri.m:73-132`).
    package static func isBrokerRedirectURI(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
              !scheme.isEmpty, scheme != "http", scheme != "https", let host = components.host, !host.isEmpty else { return false }
        return !scheme.hasPrefix("msauth.") || host.lowercased() == "auth"
    }

    /// Signs the approved user in on the device and issues the device-bound tokens, as answer fields.
    private func authenticatorTokens(_ fields: [String: String], redirectURI: String, issuerBase: String,
                                     approve: EmulatedBrokerApprover?) async throws -> [(String, String)] {
        guard let clientId = fields["client_id"], let app = application(clientId), app.isPublicClient else {
            throw EntraError.unknownClient(String((fields["client_id"] ?? "").prefix(64)))
        }
        guard Self.isBrokerRedirectURI(redirectURI) else {
            throw BrokerFailure(status: BrokerFailure.incorrectConfiguration, errorCode: 0,
                                context: "The redirect URI '\(redirectURI.prefix(256))' is not a broker redirect URI (msauth.<bundle id>://auth).")
        }
        guard RedirectURIMatcher.matches(redirectURI, registered: app.redirectURIs) else {
            throw EntraError(error: "invalid_request", code: 50011,
                             message: "The redirect URI '\(redirectURI.prefix(256))' does not match the redirect URIs configured for the application.")
        }
        guard let authority = fields["authority"].flatMap(URL.init(string:)),
              let segment = authority.path.split(separator: "/").first.map(String.init) else {
            throw BrokerFailure(status: BrokerFailure.authorityUntrusted, errorCode: 0, context: "The request has no usable authority.")
        }
        let context = try resolveContext(tenantSegment: segment, policyName: nil, tfp: false)
        if context.tenant?.kind == .b2c {
            throw BrokerFailure(status: BrokerFailure.incorrectConfiguration, errorCode: 0, context: "Broker does not support B2C requests.")
        }
        var scopes = try RequestedScopes.parse([fields["scope"], fields["extra_oidc_scopes"]].compactMap { $0 }.joined(separator: " "),
                                               apis: config.apis, applications: config.applications, clientId: app.clientId)
        scopes.oidc.formUnion(["openid", "profile", "offline_access"])
        let hint = fields["login_hint"] ?? fields["username"]
        let prompt = EmulatedBrokerPrompt(application: app.displayName, clientId: app.clientId, scopes: scopes.full,
                                          loginHint: hint, autoApproveUsername: config.autoApproveUsername)
        let chosen: String?
        if let approve { chosen = await approve(prompt) } else { chosen = config.autoApproveUsername }
        guard let chosen else {
            throw BrokerFailure(status: BrokerFailure.userCanceled, errorCode: 0, context: "User canceled the sign-in.")
        }
        guard let user = user(named: chosen), let tenant = tokenTenant(for: user, in: context) else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "The user cannot sign in to this tenant.")
        }
        recordConsent(scopes.full.filter { !$0.hasSuffix("/.default") }, userId: user.objectId, clientId: app.clientId)
        broker.signIn(user.objectId, at: now)
        let origin = Self.origin(ofAuthority: authority)
        var grant = Grant(app: app, user: user, tenant: tenant, policy: nil, scopes: scopes,
                          granted: effectiveScopes(scopes, userId: user.objectId, app: app), nonce: nil, authTime: now,
                          wantsClientInfo: true, baseURL: origin ?? issuerBase)
        grant.deviceId = broker.deviceId
        // The broker passes the application's proof-of-possession request on to the token service.
        grant.popKeyId = try requestedPoPKeyId(tokenType: fields["token_type"], confirmation: fields["req_cnf"])
        let claims = fields["claims"].flatMap { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
        noteClaims(claims, into: &grant)
        let body = try issueTokens(grant)
        var answer: [(String, String)] = [("success", "1"), ("authority", "\(origin ?? issuerBase)/\(tenant.id)"),
                                          ("client_id", app.clientId), ("token_type", body["token_type"] as? String ?? "Bearer"),
                                          ("device_mode", "personal"), ("wpj_status", "joined")]
        for key in ["access_token", "refresh_token", "id_token", "client_info", "scope", "foci"] {
            if let value = body[key] as? String { answer.append((key, value)) }
        }
        for key in ["expires_in", "ext_expires_in"] {
            if let value = body[key] as? Int { answer.append((key, String(value))) }
        }
        if fields["bound_rt_redeem"] == "1" {
            // A refresh token bound to the device: only a redemption signed by the device key could use it.
            answer.append(("refresh_token_type", "bound_app_rt"))
            answer.append(("bart_device_id", broker.deviceId))
        }
        let token = broker.applicationTokens[app.clientId] ?? "emu-app-token-" + Base64URL.random(bytes: 24)
        broker.applicationTokens[app.clientId] = token
        answer.append(("application_token", token))
        return answer
    }
}
