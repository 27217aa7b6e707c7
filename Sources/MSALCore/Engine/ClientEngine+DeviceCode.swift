import Foundation

/// A device code request, copied from ``MSALDeviceCodeParameters`` when the call starts.
struct DeviceCodeRequest: Sendable {
    var scopes: [String]
    var authority: MSALAuthority?
    var claimsRequest: MSALClaimsRequest?
    var extraQueryParameters: [String: String]
    var correlationId: UUID
    /// A proof-of-possession request (``MSALTokenParameters/authenticationScheme``); nil for a bearer token.
    var popScheme: MSALAuthenticationSchemePop? = nil
}

/// A started device code flow: the code the user enters and what polling needs. The device code inside is a
/// secret; the session is never logged.
struct DeviceCodeSession: Sendable {
    var code: MSALDeviceCode
    var scopes: [String]
    var correlationId: UUID
    var authority: MSALAuthority
    var resolved: ResolvedAuthority
    /// The device code grant (RFC 8628 §3.4), the same for every poll.
    var grant: DeviceCodeGrantRequest
    /// The key a proof-of-possession token is bound to; nil for a bearer token.
    var proofOfPossession: PoPBinding? = nil
}

extension ClientEngine {
    /// Starts the device code flow (RFC 8628): resolves the authority and asks for a device code. Polling is
    /// ``pollDeviceCode(_:)``'s job.
    func startDeviceCode(_ request: DeviceCodeRequest) async throws -> DeviceCodeSession {
        let correlationId = request.correlationId
        try Scopes.validate(request.scopes, correlationId: correlationId)
        let authority = try requestAuthority(request.authority, correlationId: correlationId)
        let binding = try popBinding(request.popScheme, correlationId: correlationId)
        let context = requestContext(correlationId)
        let client = TokenEndpointClient(context: context)
        let resolved = try await Self.cancellable(correlationId) {
            try await self.resolve(authority.descriptor, correlationId: correlationId)
        }
        let endpoint = resolved.metadata.deviceAuthorizationEndpoint ?? Self.derivedDeviceEndpoint(resolved.metadata.tokenEndpoint)
        let claims = ClaimsParameter.build(capabilities: settings.clientCapabilities, claimsRequest: request.claimsRequest)
        let extraParameters = settings.extraQueryParameters.merging(request.extraQueryParameters, uniquingKeysWith: { $1 })
        let deviceParameters = DeviceAuthorizationRequest(clientId: settings.clientId, scopes: request.scopes,
                                                          claims: claims, extraParameters: extraParameters).formParameters
        let started = try await Self.cancellable(correlationId) {
            try await client.postRaw(endpoint, parameters: deviceParameters)
        }
        guard (200..<300).contains(started.statusCode) else { throw client.errorFor(started) }
        let code = try MSALDeviceCode.parse(started.body, now: clock.now(), correlationId: correlationId)
        log(correlationId).info("Device code issued; waiting for the user to sign in (expires in "
            + "\(ExternalNumber.clampedInteger(code.expiresIn)) s, interval \(ExternalNumber.clampedInteger(code.interval)) s).")
        var grant = DeviceCodeGrantRequest(clientId: settings.clientId, deviceCode: code.deviceCode, claims: claims,
                                           extraParameters: extraParameters)
        grant.boundParameters = binding?.tokenRequestParameters ?? []
        return DeviceCodeSession(code: code, scopes: request.scopes, correlationId: correlationId, authority: authority,
                                 resolved: resolved, grant: grant, proofOfPossession: binding)
    }

    /// Polls the token endpoint for a started flow as ``DeviceCodePolling`` decides (the first poll at once), and
    /// stores the tokens like any other sign-in. Once the task is cancelled no request is sent and no answer is
    /// acted on: the call throws the cancellation error.
    func pollDeviceCode(_ session: DeviceCodeSession) async throws -> MSALResult {
        let correlationId = session.correlationId
        let log = log(correlationId)
        let client = TokenEndpointClient(context: requestContext(correlationId))
        let tokenEndpoint = session.resolved.metadata.tokenEndpoint
        var machine = DeviceCodePolling(interval: session.code.interval, expiresOn: session.code.expiresOn)
        var action = machine.start(now: clock.now())
        var lastResponse: MSALHTTPResponse?
        var lastFailure: MSALErrorInfo?
        while true {
            if Task.isCancelled { throw Self.cancelled(correlationId) }
            switch action {
            case .wait(let seconds):
                // On the application's clock: a test clock ends the wait when the test says.
                try await Self.cancellable(correlationId) { [clock] in try await clock.sleep(seconds: seconds) }
                action = machine.waited(now: clock.now())
            case .poll:
                let outcome: DeviceCodePollOutcome
                do {
                    let response = try await client.postRaw(tokenEndpoint, parameters: session.grant.formParameters)
                    if Task.isCancelled { throw Self.cancelled(correlationId) }
                    lastResponse = response
                    outcome = DeviceCodePollOutcome.classify(statusCode: response.statusCode,
                                                             oauthError: OAuthErrorBody.parse(response.body)?.error)
                } catch let error as MSALErrorInfo where error.code == .serverError && !Task.isCancelled {
                    lastFailure = error
                    outcome = .transportFailure
                    log.warning("A device code poll failed (\(error.httpStatusCode.map { "HTTP \($0)" } ?? "no connection")); backing off.")
                } catch {
                    if Task.isCancelled || ErrorBoundary.isCancellation(error) { throw Self.cancelled(correlationId) }
                    throw error
                }
                action = machine.received(outcome, now: clock.now())
            case .succeed:
                guard let response = lastResponse else { throw Self.cancelled(correlationId) }
                return try await redeemDeviceCodeResponse(response, authority: session.authority, resolved: session.resolved,
                                                          scopes: session.scopes, correlationId: correlationId,
                                                          proofOfPossession: session.proofOfPossession)
            case .stop(let reason):
                throw Self.stopError(reason, response: lastResponse, failure: lastFailure, client: client,
                                     correlationId: correlationId)
            }
        }
    }

    private func redeemDeviceCodeResponse(_ response: MSALHTTPResponse, authority: MSALAuthority, resolved: ResolvedAuthority,
                                          scopes: [String], correlationId: UUID,
                                          proofOfPossession: PoPBinding?) async throws -> MSALResult {
        var tokenResponse = try TokenResponse.parse(response.body, correlationId: correlationId)
        tokenResponse.serverDate = response.header("Date").flatMap(HTTPDate.parse)
        // A flow cancelled while the answer was on its way stores nothing.
        if Task.isCancelled { throw Self.cancelled(correlationId) }
        var redemption = TokenRedemption(
            resolved: resolved, scopes: scopes, correlationId: correlationId, authority: authority,
            requiresIdToken: true, accountSource: DeviceCodeGrantRequest.grantType)
        redemption.proofOfPossession = proofOfPossession
        let result = try await accept(tokenResponse, redemption, cache: cache)
        log(correlationId).info("Device code sign-in completed.")
        return result
    }

    /// The typed error for a flow that stopped without tokens.
    ///
    /// - declined (`authorization_declined`, `access_denied`) → ``MSALError/userCanceled``
    /// - expired (`expired_token`, or the expiry passed on the client) and `bad_verification_code` →
    ///   ``MSALError/internal`` with ``MSALInternalError/internalErrorInvalidGrant``
    /// - any other server error → the server's error as MSAL maps it; persistent transport failures → the last
    ///   ``MSALError/serverError``.
    static func stopError(_ reason: DeviceCodeStopReason, response: MSALHTTPResponse?, failure: MSALErrorInfo?,
                          client: TokenEndpointClient, correlationId: UUID) -> MSALErrorInfo {
        var body = response.flatMap { OAuthErrorBody.parse($0.body) }
        if reason == .expired, let error = body?.error, error != "expired_token", error != "code_expired" {
            body = nil  // expired on the client's clock while the server still said pending
        }
        var error: MSALErrorInfo
        switch reason {
        case .declined:
            error = MSALErrorInfo(.userCanceled, description: "The user declined the device code sign-in.")
        case .expired:
            error = .internal(.internalErrorInvalidGrant,
                              "The device code expired before the user signed in; start a new device code sign-in.")
        case .badVerificationCode:
            error = .internal(.internalErrorInvalidGrant, "The server did not accept the device code (bad_verification_code).")
        case .serverError:
            if let response { return client.errorFor(response) }
            error = MSALErrorInfo(.serverError, description: "The device code sign-in failed.")
        case .transportFailed:
            if let failure { return failure }
            error = MSALErrorInfo(.serverError, description: "The token endpoint could not be reached.")
        }
        if let body, reason != .transportFailed {
            error.oauthError = body.error
            error.oauthSubError = body.subError
            error.stsErrorCodes = body.errorCodes.isEmpty ? nil : body.errorCodes
            error.httpStatusCode = response?.statusCode
        } else if reason == .expired {
            error.oauthError = "expired_token"
        }
        error.correlationId = correlationId
        return error
    }

    /// Entra's device authorization endpoint next to its token endpoint, for metadata that does not name it.
    static func derivedDeviceEndpoint(_ tokenEndpoint: URL) -> URL {
        tokenEndpoint.deletingLastPathComponent().appendingPathComponent("devicecode")
    }

    static func cancelled(_ correlationId: UUID) -> MSALErrorInfo {
        .cancelled("The device code sign-in", correlationId: correlationId)
    }

    /// Runs `body`, reporting task cancellation as ``MSALError/userCanceled``.
    static func cancellable<T: Sendable>(_ correlationId: UUID, _ body: @Sendable () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            if ErrorBoundary.isCancellation(error) || Task.isCancelled { throw cancelled(correlationId) }
            throw error
        }
    }
}
