import Foundation

extension MSALPublicClientApplication {
    /// Signs the user in with a device code (RFC 8628): the user opens a page on another device (a phone, a
    /// computer with a browser) and enters the code that `deviceCodeHandler` receives.
    ///
    /// MSAL polls the token endpoint at the interval the server asks for (5 s when it gives none; `slow_down`
    /// adds 5 s), until the user signs in, declines, or the code expires. The tokens are stored in the cache like
    /// any other sign-in, so later ``acquireTokenSilent(with:completionBlock:)`` calls succeed for the account.
    ///
    /// Errors:
    /// - the user declined (`authorization_declined`, `access_denied`): ``MSALError/userCanceled``;
    /// - the code expired (`expired_token`, or its lifetime passed) or was rejected (`bad_verification_code`):
    ///   ``MSALError/internal`` with ``MSALInternalError/internalErrorInvalidGrant``;
    /// - the server could not be reached after several attempts with back-off: ``MSALError/serverError``.
    ///
    /// Use the `async` form to be able to cancel the flow (task cancellation → ``MSALError/userCanceled``).
    ///
    /// - Parameters:
    ///   - parameters: Scopes, authority, claims, extra query parameters and correlation id.
    ///   - deviceCodeHandler: Called once with the user code and instructions, before polling starts, on a
    ///     background thread.
    ///   - completionBlock: Called with the result or the error on the parameters' completion queue.
    public func acquireTokenWithDeviceCode(with parameters: MSALDeviceCodeParameters,
                                           deviceCodeHandler: @escaping MSALDeviceCodeHandler,
                                           completionBlock: @escaping MSALCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenWithDeviceCode(with: parameters, deviceCodeHandler: deviceCodeHandler)
        }
    }

    /// Signs the user in with a device code (the `async` form of
    /// ``acquireTokenWithDeviceCode(with:deviceCodeHandler:completionBlock:)``): ``startDeviceCodeFlow(with:)``,
    /// then `deviceCodeHandler`, then ``MSALDeviceCodeFlow/result()`` in one call.
    ///
    /// ```swift
    /// let result = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
    ///     print(code.message)
    /// }
    /// ```
    ///
    /// Cancelling the calling task stops polling and throws ``MSALError/userCanceled``. An app that shows the code
    /// in its own UI state is better served by ``startDeviceCodeFlow(with:)``, which returns the code instead of
    /// handing it to a `@Sendable` closure.
    public func acquireTokenWithDeviceCode(with parameters: MSALDeviceCodeParameters,
                                           deviceCodeHandler: @escaping MSALDeviceCodeHandler) async throws -> MSALResult {
        let flow = try await startDeviceCodeFlow(with: parameters)
        deviceCodeHandler(flow.deviceCode)
        return updatingExternalAccounts(try await flow.result())
    }

    /// Starts a device code sign-in and returns as soon as the identity provider has issued the code: show
    /// ``MSALDeviceCodeFlow/deviceCode`` to the user, then await ``MSALDeviceCodeFlow/result()``.
    ///
    /// ```swift
    /// let flow = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
    /// print(flow.deviceCode.message)   // or show userCode and verificationURI in your UI
    /// let result = try await flow.result()
    /// ```
    ///
    /// Nothing is polled until ``MSALDeviceCodeFlow/result()`` is called; its first poll goes out at once, later
    /// ones at the interval the server asks for (5 s when it gives none; `slow_down` adds 5 s). Cancel the flow by
    /// cancelling the task that awaits the result, or with ``MSALDeviceCodeFlow/cancel()``.
    ///
    /// Errors of the start (``MSALErrorInfo``): invalid scopes or authority, an authority that cannot be resolved,
    /// the server's refusal to issue a code (its OAuth error as MSAL maps it), ``MSALError/userCanceled`` when the
    /// calling task is cancelled. The errors of the sign-in itself come from ``MSALDeviceCodeFlow/result()``.
    public func startDeviceCodeFlow(with parameters: MSALDeviceCodeParameters) async throws -> MSALDeviceCodeFlow {
        let request = DeviceCodeRequest(scopes: parameters.scopes, authority: parameters.authority,
                                        claimsRequest: parameters.claimsRequest,
                                        extraQueryParameters: parameters.extraQueryParameters ?? [:],
                                        correlationId: parameters.correlationId ?? CorrelationID.next(),
                                        popScheme: parameters.popScheme)
        let correlationId = request.correlationId
        let session: DeviceCodeSession
        do {
            session = try await ErrorBoundary.run(.deviceCode, correlationId: correlationId) { [engine] in
                try await engine.startDeviceCode(request)
            }
        } catch {
            // A flow that could not start is reported like a failed sign-in.
            _ = try await engine.reporting(.deviceCode, correlationId: correlationId, authority: request.authority) {
                throw error
            }
            throw error
        }
        return MSALDeviceCodeFlow(deviceCode: session.code, correlationId: correlationId) { [engine] in
            try await engine.reporting(.deviceCode, correlationId: correlationId, authority: request.authority) {
                try await ErrorBoundary.run(.deviceCode, correlationId: correlationId) { [engine] in
                    try await engine.pollDeviceCode(session)
                }
            }
        }
    }
}
