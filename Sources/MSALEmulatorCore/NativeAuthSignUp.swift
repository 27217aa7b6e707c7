import MSALSupport
import Foundation

/// A sign-up in progress: what the new user gave so far.
struct SignUpDraft: Sendable, Equatable {
    var username: String
    var password: String?
    var attributes: [String: String]
    var verified = false
}

extension EmulatorCore {
    /// `signup/v1.0/start`, `challenge` and `continue`: a new customer of an External ID tenant, with their email
    /// verified by a one-time passcode, the password and the attributes the user flow asks for
    /// (``NativeAuthSettings``). Errors as Entra's (`user_already_exists`, password suberrors,
    /// `attribute_validation_failed`, `credential_required`, `attributes_required`).
    func nativeSignUp(_ endpoint: NativeAuthEndpoint, app: EmulatedApplication, tenant: EmulatedTenant,
                      challengeTypes: Set<String>, _ request: EmulatorRequest) throws(EntraError) -> [String: Any] {
        let settings = config.nativeAuth
        switch endpoint {
        case .signUpStart:
            let username = (request.form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            guard username.contains("@"), username.count <= 256, !username.contains(" ") else {
                throw EntraError(error: "invalid_request", code: 90100, message: "The username parameter is empty or not valid.")
            }
            guard user(named: username) == nil else {
                throw EntraError(error: "user_already_exists", code: 1003037, message: "It looks like you may already have an account.")
            }
            // The email is verified with a code; a password user flow also needs the password challenge type.
            guard challengeTypes.contains("oob"), !settings.signUpWithPassword || challengeTypes.contains("password") else {
                return ["challenge_type": "redirect", "redirect_reason": "The sign-up user flow needs a challenge type the app did not declare."]
            }
            var draft = SignUpDraft(username: username, password: nil, attributes: [:])
            if let password = request.form["password"], settings.signUpWithPassword {
                try checkPassword(password, username: username)
                draft.password = password
            }
            if let text = request.form["attributes"] {
                draft.attributes = try signUpAttributes(text, token: nil)
            }
            return ["continuation_token": startFlow(NativeAuthFlow(clientId: app.clientId, userId: "", tenantId: tenant.id,
                                                                   stage: .signUpStarted(draft), expiresAt: now + Self.continuationTokenLifetime,
                                                                   capabilities: nativeAuthCapabilities(request)))]
        case .signUpChallenge:
            let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: tenant.id)
            var next = flow
            next.expiresAt = now + Self.continuationTokenLifetime
            switch flow.stage {
            case .signUpStarted(let draft), .signUpCodeSent(let draft, _):
                guard challengeTypes.contains("oob") else { return ["challenge_type": "redirect"] }
                nativeAuthFlows.removeValue(forKey: token)
                next.stage = .signUpCodeSent(draft, code: mailCode(to: draft.username))
                return codeSentAnswer(to: draft.username, token: startFlow(next))
            case .signUpPasswordRequired:
                guard challengeTypes.contains("password") else { return ["challenge_type": "redirect"] }
                nativeAuthFlows.removeValue(forKey: token)
                return ["challenge_type": "password", "continuation_token": startFlow(next)]
            default:
                throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
            }
        default:
            return try signUpContinue(app: app, tenant: tenant, request)
        }
    }

    /// `signup/v1.0/continue`: the code, the password or the attributes; then what is still missing, or the new
    /// user.
    private func signUpContinue(app: EmulatedApplication, tenant: EmulatedTenant, _ request: EmulatorRequest) throws(EntraError) -> [String: Any] {
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: tenant.id)
        var draft: SignUpDraft
        switch (request.form["grant_type"], flow.stage) {
        case ("oob"?, .signUpCodeSent(let sent, let code)):
            guard let submitted = request.form["oob"], !submitted.isEmpty else { throw EntraError.missing("oob") }
            guard ConstantTime.equals(submitted, code) else {
                throw EntraError(error: "invalid_grant", code: 50181, message: "Unable to validate the one-time passcode.",
                                 suberror: "invalid_oob_value")
            }
            draft = sent
            draft.verified = true
        case ("password"?, .signUpPasswordRequired(let asked)):
            guard let password = request.form["password"], !password.isEmpty else { throw EntraError.missing("password") }
            try checkPassword(password, username: asked.username)
            draft = asked
            draft.password = password
        case ("attributes"?, .signUpAttributesRequired(let asked)):
            guard let text = request.form["attributes"] else { throw EntraError.missing("attributes") }
            draft = asked
            draft.attributes.merge(try signUpAttributes(text, token: token)) { $1 }
        case (nil, _):
            throw EntraError.missing("grant_type")
        default:
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
        }
        nativeAuthFlows.removeValue(forKey: token)
        var next = flow
        next.expiresAt = now + Self.continuationTokenLifetime
        if config.nativeAuth.signUpWithPassword, draft.password == nil {
            next.stage = .signUpPasswordRequired(draft)
            var error = EntraError(error: "credential_required", code: 55103, message: "Credential required.")
            error.continuationToken = startFlow(next)
            throw error
        }
        let missing = config.nativeAuth.signUpAttributes.filter { $0.required && (draft.attributes[$0.name] ?? "").isEmpty }
        if !missing.isEmpty {
            next.stage = .signUpAttributesRequired(draft)
            var error = EntraError(error: "attributes_required", code: 55106, message: "User attributes required.")
            error.continuationToken = startFlow(next)
            error.requiredAttributes = missing
            throw error
        }
        guard user(named: draft.username) == nil else {
            throw EntraError(error: "user_already_exists", code: 1003037, message: "It looks like you may already have an account.")
        }
        let user = EmulatedUser(username: draft.username, password: draft.password ?? "", objectId: UUID().uuidString.lowercased(),
                                homeTenantId: flow.tenantId, displayName: draft.attributes["displayName"] ?? draft.username,
                                givenName: draft.attributes["givenName"], surname: draft.attributes["surname"],
                                mail: draft.username, jobTitle: draft.attributes["jobTitle"])
        config.users.append(user)
        next.userId = user.objectId
        next.stage = .completed
        return ["continuation_token": startFlow(next), "expires_in": Int(Self.continuationTokenLifetime)]
    }

    /// The attributes of a `start` or `continue` request (a JSON object whose values are strings, or numbers taken
    /// as their text), checked against the user flow's rules; unknown names are ignored.
    private func signUpAttributes(_ text: String, token: String?) throws(EntraError) -> [String: String] {
        guard text.utf8.count <= 16_384,
              let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw EntraError(error: "invalid_request", code: 90100, message: "The attributes parameter is not a JSON object.")
        }
        var values: [String: String] = [:]
        var invalid: [String] = []
        for rule in config.nativeAuth.signUpAttributes {
            guard let value = object[rule.name] else { continue }
            let text: String
            switch value {
            case let string as String: text = string
            case let number as NSNumber: text = number.stringValue
            default: invalid.append(rule.name); continue
            }
            if text.count > 1024 || (rule.required && text.isEmpty) { invalid.append(rule.name); continue }
            if let regex = rule.regex, text.range(of: regex, options: .regularExpression) == nil { invalid.append(rule.name); continue }
            values[rule.name] = text
        }
        if !invalid.isEmpty {
            var error = EntraError(error: "invalid_grant", code: 550600, message: "Attribute validation failed.",
                                   suberror: "attribute_validation_failed")
            error.invalidAttributes = invalid
            error.continuationToken = token
            throw error
        }
        return values
    }

    /// The tenant's password policy: the minimum length, at most 256 characters, three of lower case, upper case,
    /// digits and symbols, and not the username.
    func checkPassword(_ password: String, username: String, current: String? = nil) throws(EntraError) {
        func reject(_ suberror: String, _ message: String) -> EntraError {
            EntraError(error: "invalid_grant", code: 399246, message: message, suberror: suberror)
        }
        if password.count < config.nativeAuth.passwordMinimumLength {
            throw reject("password_too_short", "The password is too short.")
        }
        if password.count > 256 { throw reject("password_too_long", "The password is too long.") }
        let classes = [password.contains { $0.isLowercase }, password.contains { $0.isUppercase },
                       password.contains { $0.isNumber }, password.contains { !$0.isLetter && !$0.isNumber }]
        if classes.filter({ $0 }).count < 3 { throw reject("password_too_weak", "The password is too weak.") }
        if password.lowercased() == username.lowercased() { throw reject("password_is_invalid", "The password is not valid.") }
        if let current, password == current { throw reject("password_recently_used", "The password was used recently.") }
    }

    /// `grant_type=continuation_token`: the sign-in that follows a completed sign-up or password reset.
    func nativeAuthContinuationGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: context.tenant?.id)
        guard flow.stage == .completed || flow.stage == .strongAuthCompleted, let user = user(id: flow.userId) else {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
        }
        if let username = request.form["username"], username.lowercased() != user.username.lowercased() {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token was issued for another user.")
        }
        return try nativeAuthGrant(app, context, request, token: token, flow: flow, user: user,
                                   secondFactorDone: flow.stage == .strongAuthCompleted)
    }
}
