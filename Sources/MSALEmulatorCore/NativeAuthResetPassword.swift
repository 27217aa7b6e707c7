import MSALSupport
import Foundation

extension EmulatorCore {
    /// `resetpassword/v1.0/start`, `challenge`, `continue`, `submit` and `poll_completion`: self-service password
    /// reset of an External ID customer who has a password. The new password is applied after
    /// ``NativeAuthSettings/resetPasswordPolls`` `in_progress` answers; the last answer's token signs the user in
    /// (`grant_type=continuation_token`).
    func nativePasswordReset(_ endpoint: NativeAuthEndpoint, app: EmulatedApplication, tenant: EmulatedTenant,
                             challengeTypes: Set<String>, _ request: EmulatorRequest) throws(EntraError) -> [String: Any] {
        if endpoint == .resetStart {
            guard let username = request.form["username"], !username.isEmpty else { throw EntraError.missing("username") }
            guard let user = user(named: username), user.homeTenantId == tenant.id else {
                throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
            }
            guard !user.password.isEmpty else {
                throw EntraError(error: "invalid_request", code: 500222, message: "The user does not have a password.")
            }
            guard challengeTypes.contains("oob") else {
                return ["challenge_type": "redirect", "redirect_reason": "Password reset verifies the email with a code."]
            }
            return ["continuation_token": startFlow(NativeAuthFlow(clientId: app.clientId, userId: user.objectId, tenantId: tenant.id,
                                                                   stage: .resetStarted, expiresAt: now + Self.continuationTokenLifetime,
                                                                   capabilities: nativeAuthCapabilities(request)))]
        }
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: tenant.id)
        guard let user = user(id: flow.userId) else {
            throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
        }
        var next = flow
        next.expiresAt = now + Self.continuationTokenLifetime
        switch (endpoint, flow.stage) {
        case (.resetChallenge, .resetStarted), (.resetChallenge, .resetCodeSent):
            guard challengeTypes.contains("oob") else { return ["challenge_type": "redirect"] }
            nativeAuthFlows.removeValue(forKey: token)
            next.stage = .resetCodeSent(mailCode(to: user.mail ?? user.username))
            return codeSentAnswer(to: user.mail ?? user.username, token: startFlow(next))
        case (.resetContinue, .resetCodeSent(let code)):
            guard request.form["grant_type"] == "oob" else { throw EntraError.missing("grant_type") }
            guard let submitted = request.form["oob"], !submitted.isEmpty else { throw EntraError.missing("oob") }
            guard ConstantTime.equals(submitted, code) else {
                throw EntraError(error: "invalid_grant", code: 50181, message: "Unable to validate the one-time passcode.",
                                 suberror: "invalid_oob_value")
            }
            nativeAuthFlows.removeValue(forKey: token)
            next.stage = .resetVerified
            return ["continuation_token": startFlow(next), "expires_in": Int(Self.continuationTokenLifetime)]
        case (.resetSubmit, .resetVerified):
            guard let password = request.form["new_password"], !password.isEmpty else { throw EntraError.missing("new_password") }
            try checkPassword(password, username: user.username, current: user.password)
            nativeAuthFlows.removeValue(forKey: token)
            next.stage = .resetSubmitted(newPassword: password, pollsLeft: max(0, config.nativeAuth.resetPasswordPolls))
            return ["continuation_token": startFlow(next), "poll_interval": max(0, config.nativeAuth.resetPasswordPollInterval)]
        case (.resetPollCompletion, .resetSubmitted(let password, let pollsLeft)):
            if pollsLeft > 0 {
                nativeAuthFlows[token]?.stage = .resetSubmitted(newPassword: password, pollsLeft: pollsLeft - 1)
                return ["status": "in_progress"]
            }
            if let index = config.users.firstIndex(where: { $0.objectId == user.objectId }) {
                config.users[index].password = password
            }
            nativeAuthFlows.removeValue(forKey: token)
            next.stage = .completed
            return ["status": "succeeded", "continuation_token": startFlow(next), "expires_in": Int(Self.continuationTokenLifetime)]
        default:
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
        }
    }
}
