import MSALSupport
import Foundation

/// An error of the emulated SSO extension, as the app sees one: either `ASAuthorizationError` itself
/// (``authorizationErrorDomain``: 1001 cancelled, 1003 not handled), or the extension's own error, which the app gets
/// as the underlying error of `ASAuthorizationError` -6000 (`MSIDSSOExtensionUnderlyingError`), in the common core's
/// domains with its userInfo keys (`MSIDErrorDescriptionKey`, `MSIDOAuthErrorKey`, `MSIDOAuthSubErrorKey`), as the
/// common core's tests build it (`IdentityCore/tests/integration/MSIDSSOExtensionRequestDelegateTests.m:94-107`).
package struct EmulatedSSOExtensionError: Error, Sendable {
    package static let authorizationErrorDomain = "com.apple.AuthenticationServices.AuthorizationError"
    package static let msidErrorDomain = "MSIDErrorDomain"

    package var domain: String
    package var code: Int
    package var description: String
    /// The error's userInfo (string values).
    package var userInfo: [String: String] = [:]

    /// An error of the extension itself (under -6000), in `MSIDErrorDomain`.
    static func msid(_ code: Int, _ description: String, oauthError: String? = nil, subError: String? = nil) -> Self {
        var userInfo = ["MSIDErrorDescriptionKey": description]
        userInfo["MSIDOAuthErrorKey"] = oauthError
        userInfo["MSIDOAuthSubErrorKey"] = subError
        return Self(domain: msidErrorDomain, code: code, description: description, userInfo: userInfo)
    }

    /// Whether the app sees this error under `ASAuthorizationError` -6000.
    package var isUnderlying: Bool { domain != Self.authorizationErrorDomain }
}

/// Microsoft's Enterprise SSO extension (Apple platforms), emulated: to an operation and its `authorizationOptions`
/// it answers the header fields of its `authenticatedResponse`, as the extension does (MSAL for iOS/macOS's common
/// core, message protocol 4): `login` and `refresh` tokens from the emulator's directory, issued for the emulated
/// device (a `deviceid` claim, a refresh token bound to it), the device's accounts, its information (`device_mode`,
/// `wpj_status`, `extraDeviceInfo`), and sign-out. Accounts are the emulated broker's (``BrokerState``): one device.
extension EmulatorCore {
    /// Whether the emulated device is in shared device mode.
    package func setSharedDeviceMode(_ shared: Bool) { broker.sharedDevice = shared }

    package func ssoExtensionAnswer(_ operation: String, items: [String: String], issuerBase: String,
                                    approve: EmulatedBrokerApprover? = nil) async throws(EmulatedSSOExtensionError) -> [String: String] {
        guard items.count <= 128, items.allSatisfy({ $0.value.utf8.count <= 1 << 16 }), items["msg_protocol_ver"] == "4",
              let key = items["broker_key"].flatMap(Base64URL.decode), key.count == 32 else {
            throw EmulatedSSOExtensionError.msid(-51112, "The request is not an MSAL operation.")
        }
        var answer = deviceFields()
        answer["operation"] = operation
        answer["success"] = "1"
        do {
            switch operation {
            case "login", "refresh":
                // The extension serves an app only at a broker redirect URI, as Authenticator does.
                guard Self.isBrokerRedirectURI(items["redirect_uri"] ?? "") else {
                    throw EmulatedSSOExtensionError.msid(-51119, "The redirect URI is not a broker redirect URI (msauth.<bundle id>://auth).")
                }
                answer.merge(try await ssoExtensionTokens(operation, items, issuerBase: issuerBase, approve: approve)) { $1 }
                answer["operation_response_type"] = "operation_token_response"
            case "get_accounts_operation":
                let accounts = broker.accounts.compactMap { user(id: $0.userId) }.map { user -> [String: Any] in
                    ["home_account_id": "\(user.objectId).\(user.homeTenantId)", "username": user.username,
                     "local_account_id": user.objectId, "account_type": "AAD", "realm": user.homeTenantId,
                     "environment": Self.environment(of: issuerBase), "name": user.displayName,
                     "given_name": user.givenName ?? "", "family_name": user.surname ?? "", "is_sso_account": "1"]
                }
                let data = (try? JSONSerialization.data(withJSONObject: accounts, options: [.sortedKeys])) ?? Data("[]".utf8)
                answer["accounts"] = String(decoding: data, as: UTF8.self)
                answer["operation_response_type"] = "operation_get_accounts_response"
            case "get_device_info":
                answer["operation_response_type"] = "operation_generic_response"
            case "signout_account_operation":
                let home = items["home_account_id"] ?? ""
                let objectId = String(home.split(separator: ".").first ?? "")
                if items["wipe_cache_all_accounts"] == "1" {
                    // Every account out of the device, and every refresh token bound to it.
                    broker.accounts.removeAll()
                    refreshTokens = refreshTokens.filter { $0.value.deviceId == nil }
                } else {
                    broker.accounts.removeAll { $0.userId == objectId }
                    if items["wipe_account"] == "1" {
                        refreshTokens = refreshTokens.filter { $0.value.deviceId == nil || $0.value.userId != objectId }
                    }
                }
                answer["operation_response_type"] = "operation_generic_response"
            default:
                throw EmulatedSSOExtensionError(domain: EmulatedSSOExtensionError.authorizationErrorDomain, code: 1003,
                                                description: "The extension does not handle the operation \(operation.prefix(64)).")
            }
        } catch let error as EmulatedSSOExtensionError {
            throw error
        } catch let failure as BrokerFailure {
            switch failure.status {
            case BrokerFailure.userCanceled:
                // The user closed the extension's own user interface: the framework's cancellation.
                throw EmulatedSSOExtensionError(domain: EmulatedSSOExtensionError.authorizationErrorDomain, code: 1001,
                                                description: failure.context)
            case BrokerFailure.interactionRequired:
                throw EmulatedSSOExtensionError.msid(-51115, failure.context, oauthError: "interaction_required")
            case BrokerFailure.incorrectConfiguration, BrokerFailure.apiContractViolation:
                throw EmulatedSSOExtensionError.msid(-51112, failure.context)
            default:
                throw EmulatedSSOExtensionError.msid(-51100, failure.context)
            }
        } catch let error as EntraError {
            // An identity-platform refusal is a failed token answer, as the extension writes it.
            answer["success"] = "0"
            answer["error"] = error.error
            answer["error_description"] = "\(error.codeText): \(error.message)"
            answer["suberror"] = error.suberror
            answer["error_codes"] = "[\(error.code)]"
            answer["provider_type"] = "provider_aad_v2"
            answer["operation_response_type"] = "operation_token_response"
        } catch {
            throw EmulatedSSOExtensionError.msid(-51100, "The extension failed.")
        }
        return answer
    }

    /// The device fields every answer carries.
    func deviceFields() -> [String: String] {
        var extra = ["primary_registration_metadata_device_id": broker.deviceId,
                     "primary_registration_metadata_tenant_id": broker.registration?.tenantId ?? EmulatorConfiguration.demoTenantId]
        if let upn = broker.registration?.userPrincipalName ?? config.autoApproveUsername {
            extra["primary_registration_metadata_upn"] = upn
        }
        let data = (try? JSONSerialization.data(withJSONObject: extra, options: [.sortedKeys])) ?? Data("{}".utf8)
        var fields = ["device_mode": broker.sharedDevice ? "shared" : "personal", "sso_extension_mode": "full",
                      "wpj_status": "joined", "broker_version": Self.authenticatorVersion,
                      "preferred_auth_config": broker.preferredAuthConfig,
                      "extraDeviceInfo": String(decoding: data, as: UTF8.self)]
        fields["platform_sso_status"] = broker.platformSSOStatus
        return fields
    }

    private func ssoExtensionTokens(_ operation: String, _ items: [String: String], issuerBase: String,
                                    approve: EmulatedBrokerApprover?) async throws -> [String: String] {
        guard let clientId = items["client_id"], let app = application(clientId), app.isPublicClient else {
            throw EntraError.unknownClient(String((items["client_id"] ?? "").prefix(64)))
        }
        guard let authority = items["authority"].flatMap(URL.init(string:)),
              let segment = authority.path.split(separator: "/").first.map(String.init) else {
            throw BrokerFailure(status: BrokerFailure.authorityUntrusted, errorCode: 0, context: "The request has no usable authority.")
        }
        let context = try resolveContext(tenantSegment: segment, policyName: nil, tfp: false)
        var scopes = try RequestedScopes.parse([items["scope"], items["extra_oidc_scopes"]].compactMap { $0 }.joined(separator: " "),
                                               apis: config.apis, applications: config.applications, clientId: app.clientId)
        scopes.oidc.formUnion(["openid", "profile", "offline_access"])
        let user: EmulatedUser
        let authTime: Date
        if operation == "login" {
            let prompt = EmulatedBrokerPrompt(application: app.displayName, clientId: app.clientId, scopes: scopes.full,
                                              loginHint: items["username"], autoApproveUsername: config.autoApproveUsername)
            let chosen = approve != nil ? await approve?(prompt) : config.autoApproveUsername
            guard let chosen else { throw BrokerFailure(status: BrokerFailure.userCanceled, errorCode: 0, context: "User canceled the sign-in.") }
            guard let found = self.user(named: chosen) else {
                throw EntraError(error: "invalid_grant", code: 50034, message: "The user account does not exist in the directory.")
            }
            recordConsent(scopes.full.filter { !$0.hasSuffix("/.default") }, userId: found.objectId, clientId: app.clientId)
            broker.signIn(found.objectId, at: now)
            (user, authTime) = (found, now)
        } else {
            let objectId = String((items["home_account_id"] ?? "").split(separator: ".").first ?? "")
            guard let found = self.user(id: objectId.lowercased()), let signedInAt = broker.signedIn(found.objectId) else {
                throw BrokerFailure(status: BrokerFailure.interactionRequired, errorCode: 0,
                                    context: "The account is not signed in on this device.")
            }
            let needed = scopesNeedingConsent(scopes, userId: found.objectId, app: app)
            if !needed.isEmpty { throw EntraError.consentRequired(needed, clientId: app.clientId) }
            (user, authTime) = (found, signedInAt)
        }
        guard let tenant = tokenTenant(for: user, in: context) else {
            throw EntraError(error: "invalid_grant", code: 50020, message: "The user cannot sign in to this tenant.")
        }
        let origin = Self.origin(ofAuthority: authority)
        var grant = Grant(app: app, user: user, tenant: tenant, policy: nil, scopes: scopes,
                          granted: effectiveScopes(scopes, userId: user.objectId, app: app), nonce: nil, authTime: authTime,
                          wantsClientInfo: true, baseURL: origin ?? issuerBase)
        grant.deviceId = broker.deviceId
        // The extension passes the application's proof-of-possession request on to the token service.
        grant.popKeyId = try requestedPoPKeyId(tokenType: items["token_type"], confirmation: items["req_cnf"])
        noteClaims(items["claims"], into: &grant)
        let body = try issueTokens(grant)
        var answer = ["authority": "\(origin ?? issuerBase)/\(tenant.id)", "provider_type": "provider_aad_v2",
                      "token_type": body["token_type"] as? String ?? "Bearer", "client_id": app.clientId]
        for key in ["access_token", "refresh_token", "id_token", "client_info", "scope", "foci"] {
            if let value = body[key] as? String { answer[key] = value }
        }
        for key in ["expires_in", "ext_expires_in"] {
            if let value = body[key] as? Int { answer[key] = String(value) }
        }
        return answer
    }
}
