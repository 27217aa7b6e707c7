import MSALSupport
import Foundation

extension NativeAuthFlow {
    /// Whether a second-factor code was sent (the next call redeems it, or asks for another).
    var isMFACodeSent: Bool {
        if case .mfaCodeSent = stage { return true }
        return false
    }
}

extension EmulatorCore {
    /// The strong methods `user` has (configured, then registered at sign-in), or nil when the tenant does not
    /// require one of this user.
    func strongMethods(of user: EmulatedUser) -> [NativeAuthSettings.StrongMethod]? {
        guard let entry = config.nativeAuth.strongAuthentication.first(where: { $0.username.lowercased() == user.username.lowercased() })
        else { return registeredStrongMethods[user.objectId] }
        return entry.methods + (registeredStrongMethods[user.objectId] ?? [])
    }

    /// What the app declared (`capabilities`, or `capability`; space- or comma-separated).
    func nativeAuthCapabilities(_ request: EmulatorRequest) -> Set<String> {
        let text = [request.form["capabilities"], request.form["capability"]].compactMap { $0 }.joined(separator: " ")
        return Set(text.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.lowercased() })
    }

    /// The first factor passed: a user the tenant requires a strong method of goes on to a second factor
    /// (`mfa_required`) or to registering a method (`registration_required`), each with a new continuation token;
    /// an app that did not declare the capability is sent to the browser (`redirect`).
    func strongAuthGate(token: String, flow: NativeAuthFlow, user: EmulatedUser) throws(EntraError) {
        guard let methods = strongMethods(of: user) else { return }
        let registering = methods.isEmpty
        let (capability, stage, code, message): (String, NativeAuthFlow.Stage, Int, String) = registering
            ? ("registration_required", .registrationRequired, 50079,
               "Due to a configuration change made by your administrator, you must enroll in multi-factor authentication.")
            : ("mfa_required", .mfaRequired, 50076,
               "Due to a configuration change made by your administrator, you must use multi-factor authentication.")
        guard flow.capabilities.contains(capability) else {
            throw EntraError.redirect(registering
                ? "The user must register a strong authentication method; the app did not declare registration_required."
                : "The user needs a second factor; the app did not declare mfa_required.")
        }
        nativeAuthFlows.removeValue(forKey: token)
        var next = flow
        next.expiresAt = now + Self.continuationTokenLifetime
        next.stage = stage
        throw EntraError(error: "invalid_grant", code: code, message: message, suberror: capability, continuationToken: startFlow(next))
    }

    /// `oauth2/v2.0/introspect` and `register/v1.0/*`.
    func nativeStrongAuth(_ endpoint: NativeAuthEndpoint, app: EmulatedApplication, tenant: EmulatedTenant,
                          challengeTypes: Set<String>, _ request: EmulatorRequest) throws(EntraError) -> [String: Any] {
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: tenant.id)
        guard let user = user(id: flow.userId) else {
            throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
        }
        var next = flow
        next.expiresAt = now + Self.continuationTokenLifetime
        func advance(_ stage: NativeAuthFlow.Stage) -> String {
            nativeAuthFlows.removeValue(forKey: token)
            next.stage = stage
            return startFlow(next)
        }
        let invalidStep = EntraError(error: "invalid_request", code: 55200, message: "The continuation token is not valid for this step.")
        switch endpoint {
        case .signInIntrospect:
            guard flow.stage == .mfaRequired || flow.isMFACodeSent else { throw invalidStep }
            let methods = (strongMethods(of: user) ?? []).map { method -> [String: Any] in
                ["id": method.id, "challenge_type": "oob", "challenge_channel": method.channel, "login_hint": Self.maskedContact(method)]
            }
            return ["methods": methods, "continuation_token": advance(.mfaRequired)]
        case .registerIntrospect:
            guard Self.isRegistering(flow.stage) else { throw invalidStep }
            let address = user.mail ?? user.username
            return ["methods": [["id": "email", "challenge_type": "oob", "challenge_channel": "email", "login_hint": Self.masked(address)]],
                    "continuation_token": advance(.registrationRequired)]
        case .registerChallenge:
            guard Self.isRegistering(flow.stage) else { throw invalidStep }
            guard challengeTypes.contains("oob") else {
                return ["challenge_type": "redirect", "redirect_reason": "Registering a method needs the oob challenge type."]
            }
            guard let contact = request.form["challenge_target"]?.trimmingCharacters(in: .whitespaces), !contact.isEmpty else {
                throw EntraError.missing("challenge_target")
            }
            let channel = request.form["challenge_channel"]?.lowercased() ?? "email"
            guard channel == "email", Self.isEmailAddress(contact) else {
                throw EntraError(error: "invalid_request", code: 901001, message: "The verification contact is not valid.")
            }
            guard !config.nativeAuth.blockedContacts.contains(where: { $0.lowercased() == contact.lowercased() }) else {
                throw EntraError(error: "access_denied", code: 550024, message: "The verification contact is blocked.",
                                 suberror: "provider_blocked_by_rep")
            }
            let method = NativeAuthSettings.StrongMethod(id: "email-\((registeredStrongMethods[user.objectId]?.count ?? 0) + 1)",
                                                         channel: "email", target: contact)
            if contact.lowercased() == (user.mail ?? user.username).lowercased() {
                return ["challenge_type": "preverified", "continuation_token": advance(.registrationPreverified(method))]
            }
            let code = mailCode(to: contact)
            return ["challenge_type": "oob", "binding_method": "prompt", "challenge_target": contact, "challenge_channel": "email",
                    "code_length": Self.oneTimePasscodeLength, "interval": 300,
                    "continuation_token": advance(.registrationCodeSent(method, code: code))]
        case .registerContinue:
            let grantType = request.form["grant_type"] ?? ""
            switch (flow.stage, grantType) {
            case (.registrationCodeSent(let method, let code), "oob"):
                guard let submitted = request.form["oob"], !submitted.isEmpty else { throw EntraError.missing("oob") }
                guard ConstantTime.equals(submitted, code) else {
                    throw EntraError(error: "invalid_grant", code: 50181, message: "Unable to validate the one-time passcode.",
                                     suberror: "invalid_oob_value")
                }
                registeredStrongMethods[user.objectId, default: []].append(method)
            case (.registrationPreverified(let method), "continuation_token"):
                registeredStrongMethods[user.objectId, default: []].append(method)
            case (_, "oob"), (_, "continuation_token"):
                throw invalidStep
            default:
                throw EntraError(error: "unsupported_grant_type", code: 70003, message: "The grant type is not supported here.")
            }
            return ["continuation_token": advance(.strongAuthCompleted)]
        default:
            throw invalidStep
        }
    }

    /// `oauth2/v2.0/challenge` during a second factor: a code to the method named by `id`.
    func mfaChallenge(token: String, flow: NativeAuthFlow, _ request: EmulatorRequest) throws(EntraError) -> [String: Any] {
        guard let user = user(id: flow.userId) else {
            throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
        }
        guard let id = request.form["id"], !id.isEmpty else { throw EntraError.missing("id") }
        guard let method = (strongMethods(of: user) ?? []).first(where: { $0.id == id }) else {
            throw EntraError(error: "invalid_request", code: 901002, message: "The authentication method is not one of the user's.")
        }
        guard !method.blocked else {
            throw EntraError(error: "access_denied", code: 550024, message: "The authentication method is blocked.",
                             suberror: "provider_blocked_by_rep")
        }
        nativeAuthFlows.removeValue(forKey: token)
        var next = flow
        next.expiresAt = now + Self.continuationTokenLifetime
        next.stage = .mfaCodeSent(methodId: method.id, code: mailCode(to: method.target))
        return ["challenge_type": "oob", "binding_method": "prompt", "challenge_channel": method.channel,
                "challenge_target_label": Self.maskedContact(method), "code_length": Self.oneTimePasscodeLength, "interval": 300,
                "continuation_token": startFlow(next)]
    }

    /// `grant_type=mfa_oob` (or `oob` during a second factor): the code sent to the chosen method.
    func mfaCodeGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: context.tenant?.id)
        guard case .mfaCodeSent(_, let code) = flow.stage, let user = user(id: flow.userId) else {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
        }
        guard let submitted = request.form["oob"], !submitted.isEmpty else { throw EntraError.missing("oob") }
        guard ConstantTime.equals(submitted, code) else {
            throw EntraError(error: "invalid_grant", code: 50181, message: "Unable to validate the one-time passcode.",
                             suberror: "invalid_oob_value")
        }
        return try nativeAuthGrant(app, context, request, token: token, flow: flow, user: user, secondFactorDone: true)
    }

    private static func isRegistering(_ stage: NativeAuthFlow.Stage) -> Bool {
        switch stage {
        case .registrationRequired, .registrationCodeSent, .registrationPreverified: true
        default: false
        }
    }

    private static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return text.count <= 256 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !text.contains(where: { $0 == " " || $0.isNewline })
    }

    /// A method's address or phone number as the service shows it.
    static func maskedContact(_ method: NativeAuthSettings.StrongMethod) -> String {
        guard method.channel == "sms" else { return masked(method.target) }
        let digits = method.target.filter(\.isNumber)
        return "+" + String(repeating: "*", count: max(digits.count - 2, 0)) + String(digits.suffix(2))
    }
}
