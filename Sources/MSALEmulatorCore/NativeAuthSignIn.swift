import MSALSupport
import Foundation

/// The native-authentication endpoints the emulator serves.
package enum NativeAuthEndpoint: String, Sendable, Equatable {
    /// `POST /{tenant}/oauth2/v2.0/initiate`.
    case signInInitiate
    /// `POST /{tenant}/oauth2/v2.0/challenge`.
    case signInChallenge
    /// `POST /{tenant}/oauth2/v2.0/introspect`: the user's strong methods for a second factor.
    case signInIntrospect
    /// `POST /{tenant}/register/v1.0/introspect`, `/challenge`, `/continue`: registering a strong method at sign-in.
    case registerIntrospect, registerChallenge, registerContinue
    /// `POST /{tenant}/signup/v1.0/start`, `/challenge`, `/continue`.
    case signUpStart, signUpChallenge, signUpContinue
    /// `POST /{tenant}/resetpassword/v1.0/start`, `/challenge`, `/continue`, `/submit`, `/poll_completion`.
    case resetStart, resetChallenge, resetContinue, resetSubmit, resetPollCompletion
}

/// A native-authentication flow in progress, named by its current continuation token. A token is replaced by the
/// next step's answer; a rejected code or password leaves it usable until it expires.
struct NativeAuthFlow: Sendable {
    enum Stage: Sendable, Equatable {
        /// `initiate` answered; the next call is `challenge`.
        case started
        /// A one-time passcode was sent; the next call redeems it (`grant_type=oob`) or asks for another.
        case codeSent(String)
        /// The user signs in with a password (`grant_type=password`).
        case passwordRequired
        /// Sign-up: started, a code sent, a password or attributes asked for (``SignUpDraft``).
        case signUpStarted(SignUpDraft)
        case signUpCodeSent(SignUpDraft, code: String)
        case signUpPasswordRequired(SignUpDraft)
        case signUpAttributesRequired(SignUpDraft)
        /// Password reset: started, a code sent, the code verified, the new password submitted (applied after
        /// `pollsLeft` more `in_progress` answers).
        case resetStarted
        case resetCodeSent(String)
        case resetVerified
        case resetSubmitted(newPassword: String, pollsLeft: Int)
        /// Sign-up or password reset is done: the token is redeemed with `grant_type=continuation_token`.
        case completed
        /// The first factor passed and the user needs a second (`mfa_required`): `introspect` lists the user's
        /// strong methods, `challenge` with one's `id` sends a code to it.
        case mfaRequired
        /// A code was sent to the strong method `methodId`: redeemed with `grant_type=mfa_oob` (or `oob`).
        case mfaCodeSent(methodId: String, code: String)
        /// The first factor passed and the user must register a strong method (`registration_required`).
        case registrationRequired
        /// A code was sent to the contact being registered; `register/v1.0/continue` checks it.
        case registrationCodeSent(NativeAuthSettings.StrongMethod, code: String)
        /// The contact being registered is already verified (the sign-in email): `continue` without a code.
        case registrationPreverified(NativeAuthSettings.StrongMethod)
        /// A strong method was registered: the token is redeemed with `grant_type=continuation_token`, no second
        /// factor asked again.
        case strongAuthCompleted
    }

    var clientId: String
    /// The user (empty during a sign-up, until the user exists).
    var userId: String
    var tenantId: String
    var stage: Stage
    var expiresAt: Date
    /// What the app declared it can do (`capabilities`, or `capability` as Microsoft's reference spells it):
    /// `mfa_required`, `registration_required`.
    var capabilities: Set<String> = []
}

/// A one-time passcode the emulator "mailed" to a user, readable through `GET /_emulator/native-auth/codes`.
struct SentCode: Sendable {
    var username: String
    var code: String
    var sentAt: Date
}

extension EmulatorCore {
    /// How long a continuation token lives.
    static let continuationTokenLifetime: TimeInterval = 600
    /// How many digits a one-time passcode has.
    static let oneTimePasscodeLength = 8

    /// `initiate` and `challenge` of the sign-in flow: JSON answers shaped as Entra External ID's, errors as Entra's.
    func nativeAuth(_ endpoint: NativeAuthEndpoint, _ reference: TenantReference, _ request: EmulatorRequest) -> EmulatorResponse {
        do {
            let context = try resolveContext(tenantSegment: reference.segment, policyName: nil, tfp: false)
            let app = try nativeAuthApplication(request)
            guard let tenant = context.tenant, tenant.kind == .external else {
                throw EntraError(error: "invalid_client", code: 500222, message: "Native authentication is available in External ID tenants only.",
                                 suberror: "nativeauthapi_disabled")
            }
            let challengeTypes = try nativeAuthChallengeTypes(request)
            let headers = [("client-request-id", request.correlationId)]
            switch endpoint {
            case .signUpStart, .signUpChallenge, .signUpContinue:
                return .json(try nativeSignUp(endpoint, app: app, tenant: tenant, challengeTypes: challengeTypes, request),
                             headers: headers)
            case .resetStart, .resetChallenge, .resetContinue, .resetSubmit, .resetPollCompletion:
                return .json(try nativePasswordReset(endpoint, app: app, tenant: tenant, challengeTypes: challengeTypes, request),
                             headers: headers)
            case .signInInitiate:
                guard let username = request.form["username"], !username.isEmpty else { throw EntraError.missing("username") }
                guard let user = user(named: username), let tenant = tokenTenant(for: user, in: context) else {
                    throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
                }
                let token = startFlow(NativeAuthFlow(clientId: app.clientId, userId: user.objectId, tenantId: tenant.id,
                                                     stage: .started, expiresAt: now + Self.continuationTokenLifetime,
                                                     capabilities: nativeAuthCapabilities(request)))
                return .json(["continuation_token": token], headers: headers)
            case .signInIntrospect, .registerIntrospect, .registerChallenge, .registerContinue:
                return .json(try nativeStrongAuth(endpoint, app: app, tenant: tenant, challengeTypes: challengeTypes, request),
                             headers: headers)
            case .signInChallenge:
                let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: tenant.id)
                if [.mfaRequired].contains(flow.stage) || flow.isMFACodeSent {
                    return .json(try mfaChallenge(token: token, flow: flow, request), headers: headers)
                }
                guard let user = user(id: flow.userId) else {
                    throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
                }
                nativeAuthFlows.removeValue(forKey: token)
                var next = flow
                next.expiresAt = now + Self.continuationTokenLifetime
                // A user with a password signs in with it; a user without one with an emailed code. An app that
                // cannot do what the user needs gets `redirect` (the browser).
                if !user.password.isEmpty {
                    guard challengeTypes.contains("password") else {
                        return .json(["challenge_type": "redirect", "redirect_reason": "The user signs in with a password."],
                                     headers: headers)
                    }
                    next.stage = .passwordRequired
                    return .json(["challenge_type": "password", "continuation_token": startFlow(next)], headers: headers)
                }
                guard challengeTypes.contains("oob") else {
                    return .json(["challenge_type": "redirect", "redirect_reason": "The user's sign-in method needs the browser."],
                                 headers: headers)
                }
                let code = mailCode(to: user.mail ?? user.username)
                next.stage = .codeSent(code)
                return .json(codeSentAnswer(to: user.mail ?? user.username, token: startFlow(next)), headers: headers)
            }
        } catch let error as EntraError {
            return error.response(request, clock: clock)
        } catch {
            return EntraError(error: "server_error", code: 90014, message: "The request could not be processed.").response(request, clock: clock)
        }
    }

    /// `grant_type=password` with a continuation token: the password step of a native sign-in.
    func nativeAuthPasswordGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: context.tenant?.id)
        guard flow.stage == .passwordRequired, let user = user(id: flow.userId) else {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
        }
        if let username = request.form["username"], username.lowercased() != user.username.lowercased() {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token was issued for another user.")
        }
        guard let password = request.form["password"], !password.isEmpty else { throw EntraError.missing("password") }
        guard password == user.password else {
            throw EntraError(error: "invalid_grant", code: 50126, message: "Error validating credentials due to invalid username or password.")
        }
        return try nativeAuthGrant(app, context, request, token: token, flow: flow, user: user)
    }

    /// `grant_type=oob`: the one-time passcode step of a native sign-in.
    func nativeAuthCodeGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest) throws(EntraError) -> Grant {
        let (token, flow) = try nativeAuthFlow(request, clientId: app.clientId, tenantId: context.tenant?.id)
        if flow.isMFACodeSent { return try mfaCodeGrant(app, context, request) }
        guard case .codeSent(let code) = flow.stage, let user = user(id: flow.userId) else {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid for this step.")
        }
        guard let submitted = request.form["oob"], !submitted.isEmpty else { throw EntraError.missing("oob") }
        guard ConstantTime.equals(submitted, code) else {
            throw EntraError(error: "invalid_grant", code: 50181, message: "Unable to validate the one-time passcode.",
                             suberror: "invalid_oob_value")
        }
        return try nativeAuthGrant(app, context, request, token: token, flow: flow, user: user)
    }

    /// The grant a completed native sign-in redeems: the flow ends (its token cannot be used again), the scopes it
    /// asks for are consented by the user flow.
    ///
    /// Unless `secondFactorDone`, a user the tenant requires a strong method of is stopped here (``strongAuthGate``).
    func nativeAuthGrant(_ app: EmulatedApplication, _ context: TenantContext, _ request: EmulatorRequest,
                         token: String, flow: NativeAuthFlow, user: EmulatedUser, secondFactorDone: Bool = false) throws(EntraError) -> Grant {
        guard let scopes = try parseScopes(request, app: app, required: true) else { throw EntraError.missing("scope") }
        if !secondFactorDone { try strongAuthGate(token: token, flow: flow, user: user) }
        guard let tenant = config.tenants.first(where: { $0.id == flow.tenantId }) else {
            throw EntraError(error: "user_not_found", code: 50034, message: "The user account does not exist in the directory.")
        }
        nativeAuthFlows.removeValue(forKey: token)
        recordConsent(scopes.full.filter { !$0.hasSuffix("/.default") }, userId: user.objectId, clientId: app.clientId)
        let wantsClientInfo = ["1", "true"].contains(request.form["client_info"]?.lowercased() ?? "")
        return Grant(app: app, user: user, tenant: tenant, policy: nil, scopes: scopes,
                     granted: effectiveScopes(scopes, userId: user.objectId, app: app), nonce: nil, authTime: now,
                     wantsClientInfo: wantsClientInfo, baseURL: request.baseURL)
    }

    // MARK: Shared by the flows

    /// "Mails" a new one-time passcode to `address` (readable through the control API) and returns it.
    func mailCode(to address: String) -> String {
        let code = Self.oneTimePasscode()
        sentCodes.append(SentCode(username: address, code: code, sentAt: now))
        if sentCodes.count > 256 { sentCodes.removeFirst(sentCodes.count - 256) }
        return code
    }

    /// The `challenge` answer for a code sent to `address`.
    func codeSentAnswer(to address: String, token: String) -> [String: Any] {
        ["challenge_type": "oob", "binding_method": "prompt", "challenge_channel": "email",
         "challenge_target_label": Self.masked(address), "code_length": Self.oneTimePasscodeLength, "interval": 300,
         "continuation_token": token]
    }

    /// The calling app: registered, a public client, with native authentication enabled.
    func nativeAuthApplication(_ request: EmulatorRequest) throws(EntraError) -> EmulatedApplication {
        guard let clientId = request.form["client_id"], !clientId.isEmpty else { throw EntraError.missing("client_id") }
        guard let app = application(clientId) else { throw EntraError.unknownClient(clientId) }
        guard app.nativeAuthEnabled, app.isPublicClient else {
            throw EntraError(error: "invalid_client", code: 500222, message: "Native authentication is not enabled for the application.",
                             suberror: "nativeauthapi_disabled")
        }
        return app
    }

    /// The challenge types the app declares, which must include `redirect`.
    func nativeAuthChallengeTypes(_ request: EmulatorRequest) throws(EntraError) -> Set<String> {
        guard let text = request.form["challenge_type"] else {
            return request.form["continuation_token"] != nil ? ["redirect"] : []
        }
        let types = Set(text.split(separator: " ").map { $0.lowercased() })
        guard types.contains("redirect") else {
            throw EntraError(error: "invalid_request", code: 901007, message: "The challenge_type list must include redirect.")
        }
        return types
    }

    /// The flow a request's continuation token names, for `clientId` at the tenant `tenantId` (the request's path):
    /// a token is bound to the app and the tenant it was issued for, as the service binds it (another tenant, a
    /// workforce tenant or `/common` does not take it); `expired_token` once it lapsed.
    func nativeAuthFlow(_ request: EmulatorRequest, clientId: String, tenantId: String?) throws(EntraError) -> (String, NativeAuthFlow) {
        guard let token = request.form["continuation_token"], !token.isEmpty else { throw EntraError.missing("continuation_token") }
        guard let flow = nativeAuthFlows[token], flow.clientId == clientId, flow.tenantId == tenantId else {
            throw EntraError(error: "invalid_grant", code: 55200, message: "The continuation token is not valid.")
        }
        guard flow.expiresAt > now else {
            nativeAuthFlows.removeValue(forKey: token)
            throw EntraError(error: "expired_token", code: 552003, message: "The continuation token has expired.")
        }
        return (token, flow)
    }

    /// Stores `flow` under a fresh continuation token and returns the token. Expired flows are dropped.
    func startFlow(_ flow: NativeAuthFlow) -> String {
        let current = now
        nativeAuthFlows = nativeAuthFlows.filter { $0.value.expiresAt > current }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = Base64URL.encode(Data(bytes))
        nativeAuthFlows[token] = flow
        return token
    }

    private static func oneTimePasscode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<oneTimePasscodeLength).map { _ in Character(String(generator.next(upperBound: UInt8(10)))) })
    }

    /// An address as the service shows it: the first two characters of each part kept, the rest starred.
    static func masked(_ address: String) -> String {
        let parts = address.split(separator: "@", maxSplits: 1).map(String.init)
        func mask(_ text: String) -> String { String(text.prefix(2)) + "***" }
        guard parts.count == 2 else { return mask(address) }
        let domain = parts[1].split(separator: ".", maxSplits: 1).map(String.init)
        return mask(parts[0]) + "@" + mask(domain.first ?? "") + (domain.count > 1 ? "." + domain[1] : "")
    }

    /// `GET /_emulator/native-auth/codes[?username=]`: the one-time passcodes sent, oldest first.
    func sentCodesControl(_ request: EmulatorRequest) -> EmulatorResponse {
        let username = request.parameter("username")?.lowercased()
        let codes = sentCodes.filter { username == nil || $0.username.lowercased() == username }.map { sent -> [String: Any] in
            ["username": sent.username, "code": sent.code, "sent_at": Int(sent.sentAt.timeIntervalSince1970)]
        }
        return .json(["codes": codes])
    }
}
