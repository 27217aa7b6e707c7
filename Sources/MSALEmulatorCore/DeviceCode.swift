import Foundation

extension EmulatorCore {
    static let userCodeAlphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")

    /// `POST /{tenant}/oauth2/v2.0/devicecode`: starts a device-code flow.
    func deviceAuthorization(_ reference: TenantReference, _ request: EmulatorRequest) -> EmulatorResponse {
        do {
            let context = try resolveContext(tenantSegment: reference.segment, policyName: reference.policy, tfp: reference.tfp)
            if context.policy != nil {
                throw EntraError(error: "invalid_request", code: 90057, message: "The device code flow is not supported by Azure AD B2C policies.", prefix: "AADB2C")
            }
            guard let clientId = request.form["client_id"] else { throw EntraError.missing("client_id") }
            guard let app = application(clientId) else { throw EntraError.unknownClient(clientId) }
            let scopes = try RequestedScopes.parse(request.form["scope"], apis: config.apis, applications: config.applications, clientId: app.clientId)
            let userCode = String((0..<9).map { _ in EmulatorCore.userCodeAlphabet.randomElement()! })
            let deviceCode = "DAQABAAEAAAD." + Base64URL.random(bytes: 48)
            let lifetimes = config.lifetimes
            var record = DeviceCodeRecord(
                userCode: userCode, clientId: app.clientId, context: context, scopes: scopes,
                expiresAt: now.addingTimeInterval(TimeInterval(lifetimes.deviceCode)), interval: lifetimes.deviceCodeInterval,
                lastPoll: nil, status: .pending
            )
            if let auto = config.autoApproveUsername, let user = user(named: auto), tokenTenant(for: user, in: context) != nil {
                recordConsent(scopes.full.filter { !$0.hasSuffix("/.default") }, userId: user.objectId, clientId: app.clientId)
                record.status = .approved(userId: user.objectId, granted: effectiveScopes(scopes, userId: user.objectId, app: app), authTime: now)
            }
            deviceCodes[deviceCode] = record
            prune()
            let uri = "\(request.baseURL)/devicelogin"
            return .json([
                "user_code": userCode,
                "device_code": deviceCode,
                "verification_uri": uri,
                "expires_in": lifetimes.deviceCode,
                "interval": lifetimes.deviceCodeInterval,
                "message": "To sign in, use a web browser to open the page \(uri) and enter the code \(userCode) to authenticate.",
            ])
        } catch let error as EntraError {
            return error.response(request, clock: clock)
        } catch {
            return EntraError(error: "invalid_request", code: 90014, message: "The request could not be processed.").response(request, clock: clock)
        }
    }

    /// `GET|POST /devicelogin`: code entry, then the usual sign-in and consent pages.
    func deviceLogin(_ request: EmulatorRequest) -> EmulatorResponse {
        guard request.method == "POST" else {
            return request.method == "GET" ? .html(Pages.deviceCodeEntry(error: nil)) : .methodNotAllowed("GET, POST")
        }
        let entered = (request.form["otc"] ?? "").uppercased().filter { $0.isLetter || $0.isNumber }
        guard !entered.isEmpty, entered.count <= 20,
              let (deviceCode, record) = deviceCodes.first(where: { $0.value.userCode == entered }),
              case .pending = record.status, record.expiresAt > now
        else {
            return .html(Pages.deviceCodeEntry(error: "AADSTS70000: That code didn't work. Check the code and try again."))
        }
        let sessionId = request.cookies[EmulatorCore.sessionCookie].flatMap { sessions[$0] != nil ? $0 : nil } ?? Base64URL.random(bytes: 24)
        let id = Base64URL.random(bytes: 24)
        pending[id] = PendingAuthorization(
            kind: .device(deviceCode: deviceCode), context: record.context, clientId: record.clientId, scopes: record.scopes,
            nonce: nil, prompt: "select_account", loginHint: nil, userId: nil, sessionId: sessionId, expiresAt: record.expiresAt
        )
        return advance(id, request)
    }
}
