import Foundation

extension MSALPublicClientApplication {
    /// The signed-in account of a single-account application, and the one reported before it (within this
    /// process). Fails with ``MSALInternalError/internalErrorAmbiguousAccount`` when several accounts are signed in.
    public func getCurrentAccount(with parameters: MSALParameters?, completionBlock: @escaping MSALCurrentAccountCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        let completion = CompletionCarrier(block: completionBlock)
        Task {
            do {
                let (current, previous) = try await currentAccount(with: parameters)
                queue.async { completion.block(current, previous, nil) }
            } catch {
                queue.async { completion.block(nil, nil, error) }
            }
        }
    }

    /// The signed-in account and the previous one (the `async` form of
    /// ``getCurrentAccount(with:completionBlock:)``). On a device in shared device mode (reported by the Enterprise
    /// SSO extension), the account signed in on the device.
    public func currentAccount(with parameters: MSALParameters?) async throws -> (account: MSALAccount?, previousAccount: MSALAccount?) {
        let correlationId = CorrelationID.next()
        let device = try await ErrorBoundary.run(.accounts, correlationId: correlationId) { [engine] in
            try await engine.brokeredAccounts(signedInOnly: true, correlationId: correlationId)
        }
        if let device, device.device?.shared == true {
            if device.accounts.count > 1 {
                throw MSALErrorInfo.internal(.internalErrorAmbiguousAccount, "Several accounts are signed in on the shared device.",
                                             correlationId: correlationId)
            }
            let current = device.accounts.first
            let previous = engine.currentAccountMemory.withLock { memory -> MSALAccount? in
                let previous = memory
                memory = current
                return previous
            }
            return (current, previous?.identifier == current?.identifier ? nil : previous)
        }
        let (current, previous) = try currentAccountNow()
        return (current, previous)
    }

    private func currentAccountNow() throws(MSALErrorInfo) -> (MSALAccount?, MSALAccount?) {
        try accountCall { try currentAccountInCache() }
    }

    private func currentAccountInCache() throws -> (MSALAccount?, MSALAccount?) {
        let accounts = try engine.allAccounts()
        if accounts.count > 1 {
            throw MSALErrorInfo.internal(.internalErrorAmbiguousAccount,
                                         "Several accounts are signed in; use allAccounts() in a multiple-account application.")
        }
        let current = accounts.first
        let previous = engine.currentAccountMemory.withLock { memory -> MSALAccount? in
            let previous = memory
            memory = current
            return previous
        }
        return (current, previous == current ? nil : previous)
    }

    /// Signs the account out: removes its tokens for this application and, when
    /// ``MSALSignoutParameters/signoutFromBrowser`` is set, ends the browser session through the end-session
    /// endpoint.
    public func signout(with account: MSALAccount, signoutParameters: MSALSignoutParameters,
                        completionBlock: @escaping MSALSignoutCompletionBlock) {
        let queue = Self.completionQueue(signoutParameters)
        let completion = CompletionCarrier(block: completionBlock)
        Task {
            do {
                let done = try await signout(with: account, signoutParameters: signoutParameters)
                queue.async { completion.block(done, nil) }
            } catch {
                queue.async { completion.block(false, error) }
            }
        }
    }

    /// Signs the account out.
    public func signout(with account: MSALAccount, signoutParameters: MSALSignoutParameters) async throws -> Bool {
        let correlationId = CorrelationID.next()
        return try await ErrorBoundary.run(.signOut, correlationId: correlationId) {
            try await self.signOutNow(account, signoutParameters, correlationId: correlationId)
        }
    }

    private func signOutNow(_ account: MSALAccount, _ signoutParameters: MSALSignoutParameters,
                            correlationId: UUID) async throws -> Bool {
        if signoutParameters.wipeCacheForAllAccounts {
            for other in try engine.allAccounts(onlySignedIn: false) { try engine.remove(other) }
        }
        let endSession = try await engine.signOut(account, fromBrowser: signoutParameters.signoutFromBrowser,
                                                  wipeAccount: signoutParameters.wipeAccount,
                                                  wipeCacheForAllAccounts: signoutParameters.wipeCacheForAllAccounts,
                                                  extraQueryParameters: signoutParameters.extraQueryParameters,
                                                  correlationId: correlationId)
        engine.removeLegacyItems(account)
        try externalAccounts?.remove(account, wipeAccount: signoutParameters.wipeAccount)
        if let endSession {
            let webview = signoutParameters.webviewParameters
            let authenticator = try engine.userAgent(webview, own: nil,
                                                     purpose: "for browser sign-out (the local sign-out is done)",
                                                     correlationId: correlationId)
            let request = MSALWebAuthenticationRequest(
                redirectUri: engine.settings.redirectUri, state: OAuthRandom.state(), correlationId: correlationId,
                prefersEphemeralSession: webview.prefersEphemeralWebBrowserSession, webviewParameters: webview)
            try await authenticator.endSession(url: endSession, request: request)
        }
        return true
    }

    /// Information about the device: from Microsoft's Enterprise SSO extension where one is configured (its device
    /// mode, registration details in ``MSALDeviceInformation/extraDeviceInformation``), else a personal device with
    /// no extension.
    public func getDeviceInformation(with parameters: MSALParameters?,
                                     completionBlock: @escaping MSALDeviceInformationCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.deviceInformation(with: parameters)
        }
    }

    /// Information about the device (the `async` form of ``getDeviceInformation(with:completionBlock:)``).
    public func deviceInformation(with parameters: MSALParameters?) async throws -> MSALDeviceInformation {
        let correlationId = CorrelationID.next()
        let info = try await ErrorBoundary.run(.accounts, correlationId: correlationId) { [engine] in
            try await engine.brokeredDeviceInformation(correlationId: correlationId)
        }
        guard let info else {
            // No extension: the device's own registration, if any, under MSAL for iOS/macOS's keys.
            let registration = try? engine.workplaceJoinRegistration(tenantId: nil, correlationId: correlationId)
            return Self.localDeviceInformation(registration)
        }
        return MSALDeviceInformation(
            deviceMode: info.shared ? .shared : .default, hasAADSSOExtension: true, extraDeviceInformation: info.extra,
            configuredPreferredAuthMethod: info.preferredAuthMethod, platformSSOStatus: info.platformSSOStatus)
    }

    private static func localDeviceInformation(_ registration: MSALWorkplaceJoinRegistration?) -> MSALDeviceInformation {
        var extra: [String: String] = [:]
        if let registration {
            extra[MSAL_PRIMARY_REGISTRATION_DEVICE_ID] = registration.deviceId
            extra[MSAL_PRIMARY_REGISTRATION_TENANT_ID] = registration.tenantId
            extra[MSAL_PRIMARY_REGISTRATION_UPN] = registration.userPrincipalName
            extra[MSAL_PRIMARY_REGISTRATION_CLOUD] = registration.cloudHost
            extra[MSAL_PRIMARY_REGISTRATION_CERTIFICATE_THUMBPRINT] = registration.certificateThumbprint
        }
        return MSALDeviceInformation(deviceMode: .default, hasAADSSOExtension: false, extraDeviceInformation: extra)
    }
}

/// Interactive sign-ins in progress, so that ``MSALPublicClientApplication/cancelCurrentWebAuthSession()`` reaches
/// every one of them (each application runs at most one at a time). Applications share ``process``.
final class InteractiveSessions: Sendable {
    /// The sign-ins of this process.
    static let process = InteractiveSessions()

    private let running = LockedBox<[UUID: Task<MSALResult, any Error>]>([:])

    func run(_ body: @escaping @Sendable () async throws -> MSALResult) async throws -> MSALResult {
        let key = UUID()
        let task = Task { try await body() }
        running.withLock { $0[key] = task }
        defer { running.withLock { _ = $0.removeValue(forKey: key) } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Cancels every sign-in in progress; returns whether there was one.
    func cancelAll() -> Bool {
        let tasks = running.withLock { Array($0.values) }
        for task in tasks { task.cancel() }
        return !tasks.isEmpty
    }

    /// How many sign-ins are in progress.
    var count: Int { running.withLock { $0.count } }
}
