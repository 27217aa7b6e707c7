import Foundation

/// Entra's redirect-URI rule: exact match, except that `http://localhost` and `http://127.0.0.1` match any port.
enum RedirectURIMatcher {
    static func matches(_ requested: String, registered: [String]) -> Bool {
        guard requested.utf8.count <= 2048, !requested.contains("#") else { return false }
        if registered.contains(requested) { return true }
        guard let asked = URLComponents(string: requested), asked.scheme?.lowercased() == "http",
              let askedHost = asked.host?.lowercased(), ["localhost", "127.0.0.1"].contains(askedHost)
        else { return false }
        return registered.contains { entry in
            guard let reg = URLComponents(string: entry), reg.scheme?.lowercased() == "http", reg.host?.lowercased() == askedHost else { return false }
            return normalizedPath(reg.path) == normalizedPath(asked.path) && reg.query == asked.query
        }
    }

    static func normalizedPath(_ path: String) -> String { path.isEmpty ? "/" : path }
}

extension EmulatorCore {
    static let promptValues: Set<String> = ["login", "consent", "none", "select_account", "create"]

    func errorPage(_ error: EntraError) -> EmulatorResponse {
        .html(Pages.error(code: error.codeText, message: error.message), status: 400)
    }

    /// `GET|POST /{tenant}/oauth2/v2.0/authorize`.
    func authorize(_ reference: TenantReference, _ request: EmulatorRequest) throws(EntraError) -> EmulatorResponse {
        guard request.method == "GET" || request.method == "POST" else { return .methodNotAllowed("GET, POST") }
        let context: TenantContext
        do { context = try resolveContext(tenantSegment: reference.segment, policyName: reference.policy, tfp: reference.tfp) } catch {
            return errorPage(error)
        }
        guard let clientId = request.parameter("client_id") else { return errorPage(.missing("client_id")) }
        guard let app = application(clientId) else { return errorPage(.unknownClient(clientId)) }
        guard let redirectURI = request.parameter("redirect_uri") else { return errorPage(.missing("redirect_uri")) }
        guard RedirectURIMatcher.matches(redirectURI, registered: app.redirectURIs) else {
            return errorPage(EntraError(
                error: "invalid_request", code: 50011,
                message: "The redirect URI '\(redirectURI)' specified in the request does not match the redirect URIs configured for the application '\(app.clientId)'."
            ))
        }
        let broker: NestedAuthBroker?
        do { broker = try nestedAuthBroker(request.parameter, redirectURI: redirectURI) } catch { return errorPage(error) }
        let state = request.parameter("state")
        let askedMode = request.parameter("response_mode")?.lowercased()
        let mode = ["query", "fragment", "form_post"].contains(askedMode ?? "query") ? (askedMode ?? "query") : "query"
        let fail = { (error: EntraError) -> EmulatorResponse in
            self.redirect(to: broker?.redirectURI ?? redirectURI, mode: mode,
                          parameters: error.redirectParameters + (state.map { [("state", $0)] } ?? []))
        }
        if let askedMode, askedMode != mode {
            return fail(EntraError(error: "invalid_request", code: 900352, message: "The response_mode '\(askedMode)' is not supported."))
        }
        guard let responseType = request.parameter("response_type") else { return fail(.missing("response_type")) }
        guard responseType == "code" else {
            return fail(EntraError(error: "unsupported_response_type", code: 700054, message: "response_type '\(responseType)' is not enabled for the application."))
        }
        let scopes: RequestedScopes
        do { scopes = try RequestedScopes.parse(request.parameter("scope"), apis: config.apis, applications: config.applications, clientId: app.clientId) } catch {
            return fail(error)
        }
        let challenge = request.parameter("code_challenge")
        let method = request.parameter("code_challenge_method") ?? "plain"
        guard method == "S256" || method == "plain" else {
            return fail(EntraError(error: "invalid_request", code: 501491, message: "Invalid size of Code_Challenge parameter or unsupported code_challenge_method."))
        }
        if let challenge, challenge.count < 43 || challenge.count > 128 {
            return fail(EntraError(error: "invalid_request", code: 501491, message: "Invalid size of Code_Challenge parameter."))
        }
        if app.isPublicClient, challenge == nil {
            return fail(EntraError(error: "invalid_request", code: 9002325, message: "Proof Key for Code Exchange is required for cross-origin authorization code redemption."))
        }
        let prompt = request.parameter("prompt")?.lowercased()
        if let prompt, !EmulatorCore.promptValues.contains(prompt) {
            return fail(EntraError(error: "invalid_request", code: 90023, message: "Invalid prompt value '\(prompt)'."))
        }
        var maxAge: Int?
        if let text = request.parameter("max_age") {
            guard let value = Int(text), value >= 0 else { return fail(EntraError(error: "invalid_request", code: 90023, message: "Invalid max_age value.")) }
            maxAge = value
        }
        let existingSession = request.cookies[EmulatorCore.sessionCookie].flatMap { sessions[$0] != nil ? $0 : nil }
        let sessionId = existingSession ?? Base64URL.random(bytes: 24)
        let id = Base64URL.random(bytes: 24)
        pending[id] = PendingAuthorization(
            kind: .authorize(redirectURI: redirectURI, responseMode: mode, state: state, codeChallenge: challenge, method: method,
                             wantsClientInfo: request.parameter("client_info") == "1"),
            context: context, clientId: app.clientId, scopes: scopes, nonce: request.parameter("nonce"), prompt: prompt,
            loginHint: request.parameter("login_hint"), userId: nil, sessionId: sessionId,
            expiresAt: now.addingTimeInterval(3600), maxAge: maxAge,
            capabilities: EmulatorCore.capabilities(claims: request.parameter("claims"))
        )
        pending[id]?.nestedAuthBroker = broker
        prune()
        // A tenant requiring a compliant device asks a web view that proves devices (PKeyAuth) for its proof first.
        if asksDeviceProofInWebView(context, request) {
            return webDeviceChallenge(pendingId: id, context: context, request: request)
        }
        return proceedAuthorization(id, request)
    }

    /// Signs the auto-approved user in and completes the authorization, or shows the next sign-in page.
    func proceedAuthorization(_ id: String, _ request: EmulatorRequest) -> EmulatorResponse {
        if let flow = pending[id], let app = application(flow.clientId), let auto = config.autoApproveUsername,
           let user = user(named: auto), tokenTenant(for: user, in: flow.context) != nil {
            recordConsent(flow.scopes.full.filter { !$0.hasSuffix("/.default") }, userId: user.objectId, clientId: app.clientId)
            signIn(user, sessionId: flow.sessionId)
            pending[id]?.userId = user.objectId
            return complete(id, request)
        }
        return advance(id, request)
    }

    /// Adds a user to a browser session.
    func signIn(_ user: EmulatedUser, sessionId: String) {
        var session = sessions[sessionId] ?? BrowserSession(users: [], expiresAt: now)
        session.users.removeAll { $0.id == user.objectId }
        session.users.insert((user.objectId, now), at: 0)
        session.expiresAt = now.addingTimeInterval(TimeInterval(config.lifetimes.session))
        sessions[sessionId] = session
    }

    func sessionUsers(_ sessionId: String, context: TenantContext, maxAge: Int?) -> [EmulatedUser] {
        guard let session = sessions[sessionId], session.expiresAt > now else { return [] }
        return session.users.compactMap { entry in
            if let maxAge, now.timeIntervalSince(entry.authTime) > TimeInterval(maxAge) { return nil }
            guard let user = user(id: entry.id), tokenTenant(for: user, in: context) != nil else { return nil }
            return user
        }
    }

    func cookieHeader(_ sessionId: String, secure: Bool) -> (String, String) {
        ("Set-Cookie", "\(EmulatorCore.sessionCookie)=\(sessionId); Path=/; HttpOnly; SameSite=\(secure ? "None; Secure" : "Lax")")
    }

    /// Decides the next page of an authorization in progress, or finishes it.
    func advance(_ id: String, _ request: EmulatorRequest, error: String? = nil) -> EmulatorResponse {
        guard let flow = pending[id], let app = application(flow.clientId) else {
            return errorPage(EntraError(error: "invalid_request", code: 90014, message: "The sign-in session has expired. Start again from the application."))
        }
        let cookie = cookieHeader(flow.sessionId, secure: request.scheme == "https")
        let isB2C = flow.context.policy != nil
        let tenantName = flow.context.tenant?.displayName ?? "Microsoft"
        if flow.context.policy?.kind == .passwordReset, !flow.done.contains("reset") {
            return .html(Pages.resetPassword(ctx: id, action: "/login", error: error), headers: [cookie])
        }
        guard let userId = flow.userId, let user = user(id: userId) else {
            let signedIn = sessionUsers(flow.sessionId, context: flow.context, maxAge: flow.maxAge)
            let hinted = flow.loginHint.flatMap { hint in signedIn.first { $0.username.lowercased() == hint.lowercased() } }
            if flow.prompt == "none" {
                if let chosen = hinted ?? (signedIn.count == 1 && flow.loginHint == nil ? signedIn.first : nil) {
                    pending[id]?.userId = chosen.objectId
                    return advance(id, request)
                }
                let error = signedIn.isEmpty
                    ? EntraError(error: "interaction_required", code: 50058, message: "A silent sign-in request was sent but no user is signed in.")
                    : EntraError(error: "interaction_required", code: 16000, message: "Multiple user identities are available for the current request; the user must select one.")
                return finishWithError(id, error)
            }
            if flow.prompt == "create" {
                return .html(Pages.signUp(ctx: id, action: "/login", error: error), headers: [cookie])
            }
            if error == nil, flow.prompt != "login" {
                if let hinted, flow.prompt != "select_account" {
                    pending[id]?.userId = hinted.objectId
                    return advance(id, request)
                }
                if flow.prompt == "select_account" || signedIn.count > 1, !signedIn.isEmpty {
                    return .html(Pages.accountPicker(ctx: id, action: "/login", users: signedIn), headers: [cookie])
                }
                if signedIn.count == 1, flow.loginHint == nil {
                    pending[id]?.userId = signedIn[0].objectId
                    return advance(id, request)
                }
            }
            return .html(Pages.signIn(ctx: id, action: "/login", username: flow.loginHint, error: error, tenantName: tenantName, b2c: isB2C), headers: [cookie])
        }
        if flow.context.policy?.kind == .profileEdit, !flow.done.contains("profile") {
            return .html(Pages.editProfile(ctx: id, action: "/login", user: user), headers: [cookie])
        }
        let needed = scopesNeedingConsent(flow.scopes, userId: user.objectId, app: app)
        let forceConsent = flow.prompt == "consent" && !flow.done.contains("consent")
        if (!needed.isEmpty || forceConsent) && !flow.done.contains("consent") {
            if flow.prompt == "none" {
                return finishWithError(id, .consentRequired(needed, clientId: app.clientId))
            }
            let shown = forceConsent ? flow.scopes.full.filter { !$0.hasSuffix("/.default") } : needed
            if !shown.isEmpty {
                return .html(Pages.consent(ctx: id, action: "/login", appName: app.displayName, user: user, scopes: shown), headers: [cookie])
            }
        }
        return complete(id, request)
    }

    /// Issues the authorization code (or approves the device code) and answers the client.
    func complete(_ id: String, _ request: EmulatorRequest) -> EmulatorResponse {
        guard let flow = pending.removeValue(forKey: id), let userId = flow.userId, let user = user(id: userId),
              let app = application(flow.clientId), let tenant = tokenTenant(for: user, in: flow.context)
        else {
            return errorPage(EntraError(error: "invalid_request", code: 90014, message: "The sign-in session has expired."))
        }
        let cookie = cookieHeader(flow.sessionId, secure: request.scheme == "https")
        let authTime = sessions[flow.sessionId]?.users.first { $0.id == userId }?.authTime ?? now
        let granted = effectiveScopes(flow.scopes, userId: userId, app: app)
        switch flow.kind {
        case .device(let deviceCode):
            deviceCodes[deviceCode]?.status = .approved(userId: userId, granted: granted, authTime: authTime)
            return .html(Pages.message("You're signed in", "You have signed in to \(app.displayName) on your other device. You may now close this window.", id: "device-done"), headers: [cookie])
        case .authorize(let redirectURI, let mode, let state, let challenge, let method, let wantsClientInfo):
            let code = "1.EMU." + Base64URL.random(bytes: 32)
            codes[code] = AuthorizationCode(
                clientId: app.clientId, redirectURI: redirectURI, userId: userId, tenantId: tenant.id, policy: flow.context.policy,
                scopes: flow.scopes, granted: granted, nonce: flow.nonce, codeChallenge: challenge, codeChallengeMethod: method,
                expiresAt: now.addingTimeInterval(TimeInterval(config.lifetimes.authorizationCode)), authTime: authTime,
                capabilities: flow.capabilities, deviceId: flow.deviceId, brokerClientId: flow.nestedAuthBroker?.clientId
            )
            var parameters: [(String, String)] = [("code", code)]
            if let state { parameters.append(("state", state)) }
            if wantsClientInfo { parameters.append(("client_info", clientInfo(user: user, policy: flow.context.policy))) }
            parameters.append(("session_state", flow.sessionId))
            return redirect(to: flow.nestedAuthBroker?.redirectURI ?? redirectURI, mode: mode, parameters: parameters,
                            headers: [cookie])
        }
    }

    /// Ends an authorization with an OAuth error sent to the client.
    func finishWithError(_ id: String, _ error: EntraError) -> EmulatorResponse {
        guard let flow = pending.removeValue(forKey: id) else { return errorPage(error) }
        switch flow.kind {
        case .device(let deviceCode):
            deviceCodes[deviceCode]?.status = .declined
            return .html(Pages.message("Sign-in cancelled", "\(error.codeText): \(error.message)", id: "device-declined"))
        case .authorize(let redirectURI, let mode, let state, _, _, _):
            return redirect(to: flow.nestedAuthBroker?.redirectURI ?? redirectURI, mode: mode, parameters: error.redirectParameters + (state.map { [("state", $0)] } ?? []))
        }
    }

    /// Sends parameters to the redirect URI in the query, the fragment, or an auto-submitting form.
    func redirect(to redirectURI: String, mode: String, parameters: [(String, String)], headers: [(String, String)] = []) -> EmulatorResponse {
        switch mode {
        case "form_post":
            return .html(Pages.formPost(to: redirectURI, parameters), headers: headers)
        case "fragment":
            return .redirect("\(redirectURI)#\(URLText.query(parameters))", headers: headers)
        default:
            let separator = redirectURI.contains("?") ? "&" : "?"
            return .redirect("\(redirectURI)\(separator)\(URLText.query(parameters))", headers: headers)
        }
    }
}
