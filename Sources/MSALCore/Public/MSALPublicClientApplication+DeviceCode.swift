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
        let queue = Self.completionQueue(parameters, interactive: false)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.acquireTokenWithDeviceCode(with: parameters, deviceCodeHandler: deviceCodeHandler)
        }
    }

    /// Signs the user in with a device code (the `async` form of
    /// ``acquireTokenWithDeviceCode(with:deviceCodeHandler:completionBlock:)``).
    ///
    /// ```swift
    /// let result = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
    ///     print(code.message)
    /// }
    /// ```
    ///
    /// Cancelling the calling task stops polling and throws ``MSALError/userCanceled``.
    public func acquireTokenWithDeviceCode(with parameters: MSALDeviceCodeParameters,
                                           deviceCodeHandler: @escaping MSALDeviceCodeHandler) async throws -> MSALResult {
        let request = DeviceCodeRequest(scopes: parameters.scopes, authority: parameters.authority,
                                        claimsRequest: parameters.claimsRequest,
                                        extraQueryParameters: parameters.extraQueryParameters ?? [:],
                                        correlationId: parameters.correlationId ?? CorrelationID.next())
        return try await engine.reporting(.deviceCode, correlationId: request.correlationId, authority: request.authority) {
            try await ErrorBoundary.run(.deviceCode, correlationId: request.correlationId) { [engine] in
                try await engine.acquireTokenWithDeviceCode(request, handler: deviceCodeHandler)
            }
        }
    }
}
