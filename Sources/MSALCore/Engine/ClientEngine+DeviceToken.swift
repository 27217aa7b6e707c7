import Foundation

/// The device's registration (workplace join) on the broker port: its metadata, and tokens for the device itself,
/// signed with its key (MSAL for iOS/macOS's `getWPJMetaDataDevice` and `getDeviceToken`).
extension ClientEngine {
    /// The registration in `tenantId` (the primary one when nil); nil when the device is not registered there or no
    /// store is available.
    func workplaceJoinRegistration(tenantId: String?, correlationId: UUID) throws -> MSALWorkplaceJoinRegistration? {
        guard let workplaceJoin else { return nil }
        do {
            return try workplaceJoin.registration(tenantId: tenantId)
        } catch let error as MSALErrorInfo {
            throw error
        } catch {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The device registration could not be read.",
                                         correlationId: correlationId)
        }
    }

    /// A token for the device itself in `tenantId`: a nonce, then the signed device-token grant. Never cached.
    func deviceToken(resource: String, scopes: [String], tenantId: String, correlationId: UUID) async throws -> MSALDeviceTokenResult {
        try DeviceTokenRequest.validate(resource: resource, scopes: scopes, correlationId: correlationId)
        guard settings.authority.descriptor.kind == .aad else {
            throw MSALErrorInfo.invalidParameter("Device tokens come from a Microsoft Entra authority only.", correlationId: correlationId)
        }
        guard let registration = try workplaceJoinRegistration(tenantId: tenantId, correlationId: correlationId) else {
            throw MSALErrorInfo(.workplaceJoinRequired, description: "The device is not registered in the tenant.",
                                correlationId: correlationId)
        }
        let descriptor = settings.authority.descriptor.withTenant(tenantId)
        let tokenEndpoint = try await resolve(descriptor, correlationId: correlationId).metadata.tokenEndpoint
        let nonceEndpoint = try await resolve(descriptor.withTenant("common"), correlationId: correlationId).metadata.tokenEndpoint
        let client = TokenEndpointClient(context: requestContext(correlationId))
        let nonceAnswer = try await client.postRaw(nonceEndpoint, parameters: DeviceTokenRequest.nonceParameters)
        guard (200..<300).contains(nonceAnswer.statusCode) else { throw client.errorFor(nonceAnswer) }
        let request = DeviceTokenRequest(
            tokenEndpoint: tokenEndpoint, clientId: settings.clientId, redirectUri: settings.redirectUri, resource: resource,
            scopes: scopes, nonce: try DeviceTokenRequest.nonce(from: nonceAnswer.body, correlationId: correlationId),
            registration: registration)
        let form: [(String, String)]
        do {
            form = try request.formParameters()
        } catch let error as MSALErrorInfo {
            throw error
        } catch {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The device key could not sign the request.",
                                         correlationId: correlationId)
        }
        log(correlationId).info("Asking for a device token.")
        let answer = try await client.postRaw(tokenEndpoint, parameters: form)
        guard (200..<300).contains(answer.statusCode) else { throw client.errorFor(answer) }
        return try DeviceTokenRequest.result(from: answer.body, requestedScopes: scopes,
                                             authority: MSALAuthority.make(descriptor), now: clock.now(),
                                             correlationId: correlationId)
    }
}
