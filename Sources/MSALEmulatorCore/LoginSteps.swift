import Foundation

extension EmulatorCore {
    static let cancelled = EntraError(error: "access_denied", code: 65004, message: "User declined to consent to access the app.")

    /// `POST /login`: the sign-in, sign-up, account-picker, consent, password-reset and profile forms.
    func loginStep(_ request: EmulatorRequest) -> EmulatorResponse {
        guard let id = request.form["ctx"], let flow = pending[id], flow.expiresAt > now else {
            return errorPage(EntraError(error: "invalid_request", code: 90014, message: "The sign-in session has expired. Start again from the application."))
        }
        let action = request.form["action"] ?? ""
        switch request.form["step"] ?? "" {
        case "signin":
            if action == "cancel" { return finishWithError(id, EmulatorCore.cancelled) }
            if action == "forgot", flow.context.policy != nil {
                return finishWithError(id, EntraError(error: "access_denied", code: 90118, message: "The user has forgotten their password.", prefix: "AADB2C"))
            }
            let username = (request.form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            guard let user = user(named: username), user.password == request.form["password"] ?? "" else {
                return advance(id, request, error: "AADSTS50126: Error validating credentials due to invalid username or password.")
            }
            guard tokenTenant(for: user, in: flow.context) != nil else {
                return advance(id, request, error: "AADSTS50020: User account '\(username)' from identity provider does not exist in tenant '\(flow.context.tenant?.displayName ?? "this tenant")'.")
            }
            signIn(user, sessionId: flow.sessionId)
            pending[id]?.userId = user.objectId
            return advance(id, request)
        case "signup":
            if action == "cancel" { return finishWithError(id, EmulatorCore.cancelled) }
            let username = (request.form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            let password = request.form["password"] ?? ""
            guard username.contains("@"), username.count <= 256, !password.isEmpty, password.count <= 256 else {
                return advance(id, request, error: "Enter an email address and a password.")
            }
            guard user(named: username) == nil else { return advance(id, request, error: "A user with this email address already exists.") }
            let home = flow.context.tenant ?? config.tenants.first { $0.kind == .organization }
            guard let home else { return advance(id, request, error: "No tenant can hold new accounts.") }
            let displayName = String((request.form["displayName"] ?? username).prefix(256))
            let user = EmulatedUser(
                username: username, password: password, objectId: UUID().uuidString.lowercased(), homeTenantId: home.id,
                displayName: displayName.isEmpty ? username : displayName
            )
            config.users.append(user)
            signIn(user, sessionId: flow.sessionId)
            pending[id]?.userId = user.objectId
            pending[id]?.prompt = nil
            return advance(id, request)
        case "pick":
            let account = request.form["account"] ?? ""
            if account == "cancel" { return finishWithError(id, EmulatorCore.cancelled) }
            if account == "other" {
                pending[id]?.prompt = "login"
                return advance(id, request)
            }
            guard sessionUsers(flow.sessionId, context: flow.context, maxAge: flow.maxAge).contains(where: { $0.objectId == account }) else {
                return advance(id, request)
            }
            pending[id]?.userId = account
            pending[id]?.prompt = nil
            return advance(id, request)
        case "consent":
            if action != "accept" { return finishWithError(id, EmulatorCore.cancelled) }
            guard let userId = flow.userId else { return advance(id, request) }
            let accepted = Set(request.formLists["scope"] ?? [])
            let offered = flow.scopes.full.filter { !$0.hasSuffix("/.default") }
            recordConsent(offered.filter { accepted.contains($0) }, userId: userId, clientId: flow.clientId)
            pending[id]?.done.insert("consent")
            return advance(id, request)
        case "reset":
            if action == "cancel" { return finishWithError(id, EmulatorCore.cancelled) }
            let username = (request.form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            let newPassword = request.form["newPassword"] ?? ""
            guard let user = user(named: username), tokenTenant(for: user, in: flow.context) != nil, !newPassword.isEmpty, newPassword.count <= 256 else {
                return advance(id, request, error: "AADB2C90225: The username or password provided in the request are invalid.")
            }
            if let index = config.users.firstIndex(where: { $0.objectId == user.objectId }) { config.users[index].password = newPassword }
            signIn(user, sessionId: flow.sessionId)
            pending[id]?.userId = user.objectId
            pending[id]?.done.insert("reset")
            return advance(id, request)
        case "profile":
            if action == "cancel" {
                return finishWithError(id, EntraError(error: "access_denied", code: 90091, message: "The user has cancelled entering self-asserted information.", prefix: "AADB2C"))
            }
            if let userId = flow.userId, let index = config.users.firstIndex(where: { $0.objectId == userId }),
               let name = request.form["displayName"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty {
                config.users[index].displayName = String(name.prefix(256))
            }
            pending[id]?.done.insert("profile")
            return advance(id, request)
        default:
            return errorPage(EntraError(error: "invalid_request", code: 90014, message: "The form is missing its step."))
        }
    }

    /// `GET /{tenant}/oauth2/v2.0/logout`: ends the browser session and returns to `post_logout_redirect_uri`.
    func logout(_ reference: TenantReference, _ request: EmulatorRequest) -> EmulatorResponse {
        guard request.method == "GET" || request.method == "POST" else { return .methodNotAllowed("GET, POST") }
        if let sessionId = request.cookies[EmulatorCore.sessionCookie] {
            sessions.removeValue(forKey: sessionId)
        }
        let expired = ("Set-Cookie", "\(EmulatorCore.sessionCookie)=; Path=/; Max-Age=0; HttpOnly")
        if let target = request.parameter("post_logout_redirect_uri"),
           let scheme = URLComponents(string: target)?.scheme?.lowercased(), ["http", "https"].contains(scheme) || !scheme.isEmpty,
           target.utf8.count <= 2048 {
            var location = target
            if let state = request.parameter("state") {
                location += (target.contains("?") ? "&" : "?") + URLText.query([("state", state)])
            }
            return .redirect(location, headers: [expired])
        }
        return .html(Pages.message("You signed out of your account", "It's a good idea to close all browser windows.", id: "signed-out"), headers: [expired])
    }
}
