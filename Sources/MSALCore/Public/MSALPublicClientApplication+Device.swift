import Foundation

/// The device's registration (workplace join): its metadata, and tokens for the device itself.
extension MSALPublicClientApplication {
    /// The device's workplace-join metadata in `tenantId` (the primary registration when nil): its device id, the
    /// user who registered it, and the tenant, under `aadDeviceIdentifier`, `userPrincipalName` and
    /// `aadTenantIdentifier`. An unregistered device gives empty metadata, not an error, as in MSAL for iOS/macOS.
    public func getWPJMetaDataDevice(with parameters: MSALParameters?, forTenantId tenantId: String?,
                                     completionBlock: @escaping MSALWPJMetaDataCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.wpjMetaDataDevice(with: parameters, forTenantId: tenantId)
        }
    }

    /// The `async` form of ``getWPJMetaDataDevice(with:forTenantId:completionBlock:)``.
    public func wpjMetaDataDevice(with parameters: MSALParameters?, forTenantId tenantId: String?) async throws -> MSALWPJMetaData {
        let correlationId = CorrelationID.next()
        let registration = try await ErrorBoundary.run(.device, correlationId: correlationId) { [engine] in
            try engine.workplaceJoinRegistration(tenantId: tenantId, correlationId: correlationId)
        }
        return MSALWPJMetaData(registration)
    }

    /// Gets a token for the device itself (no user) from the tenant the device is registered in: the request is
    /// signed with the device key and carries its certificate, as MSAL for iOS/macOS sends it. The token is not
    /// cached. Fails with ``MSALError/workplaceJoinRequired`` when the device is not registered in the tenant, and
    /// ``MSALInternalError/internalErrorInvalidParameter`` without a tenant, resource or scopes.
    public func getDeviceToken(with parameters: MSALDeviceTokenParameters,
                               completionBlock: @escaping MSALDeviceTokenResultCompletionBlock) {
        let queue = Self.completionQueue(parameters)
        CompletionBridge.deliver(on: queue, to: completionBlock) {
            try await self.deviceToken(with: parameters)
        }
    }

    /// The `async` form of ``getDeviceToken(with:completionBlock:)``.
    public func deviceToken(with parameters: MSALDeviceTokenParameters) async throws -> MSALDeviceTokenResult {
        let correlationId = parameters.correlationId ?? CorrelationID.next()
        guard let tenantId = parameters.tenantId else {
            throw MSALErrorInfo.invalidParameter("A device token needs a tenant.", correlationId: correlationId)
        }
        let (resource, scopes) = (parameters.resource, parameters.scopes)
        return try await ErrorBoundary.run(.device, correlationId: correlationId) { [engine] in
            try await engine.deviceToken(resource: resource, scopes: scopes, tenantId: tenantId, correlationId: correlationId)
        }
    }

    /// Gets a token for a device in shared device mode, in the tenant of its primary registration. Fails when the
    /// device is not in shared device mode (as Microsoft's Enterprise SSO extension reports it), and with
    /// ``MSALError/workplaceJoinRequired`` when the device has no registration.
    public func getDeviceTokenForSharedDevice(withResource resource: String, scopes: [String],
                                              completionBlock: @escaping MSALDeviceTokenResultCompletionBlock) {
        CompletionBridge.deliver(on: Self.completionQueue(nil), to: completionBlock) {
            try await self.deviceTokenForSharedDevice(withResource: resource, scopes: scopes)
        }
    }

    /// The `async` form of ``getDeviceTokenForSharedDevice(withResource:scopes:completionBlock:)``.
    public func deviceTokenForSharedDevice(withResource resource: String, scopes: [String]) async throws -> MSALDeviceTokenResult {
        let device = try await deviceInformation(with: nil)
        let correlationId = CorrelationID.next()
        guard device.deviceMode == .shared else {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter,
                                         "The device is not in shared device mode; ask with getDeviceToken and a tenant.",
                                         correlationId: correlationId)
        }
        guard let tenantId = device.extraDeviceInformationValues[MSAL_PRIMARY_REGISTRATION_TENANT_ID], !tenantId.isEmpty,
              let parameters = MSALDeviceTokenParameters(resource: resource, scopes: scopes, forTenantId: tenantId) else {
            throw MSALErrorInfo(.workplaceJoinRequired, description: "The shared device has no registration.",
                                correlationId: correlationId)
        }
        parameters.correlationId = correlationId
        return try await deviceToken(with: parameters)
    }
}
