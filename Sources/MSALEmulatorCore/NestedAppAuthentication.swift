import Foundation

/// Nested app authentication: a nested app's sign-in brokered by its hub app. The requests carry the hub's
/// `brk_client_id` and `brk_redirect_uri` beside the nested app's own `client_id` and `brk-<hub client id>://…`
/// redirect URI, as MSAL for iOS/macOS sends them (`IdentityCore/src/oauth2/aad_v2/MSIDAADV2WebviewFactory.m:44-52`,
/// `MSIDAADV2Oauth2Factory.m:210-282`; its tests' shapes: `MSIDDefaultInteractiveTokenRequestTests.m:864-872`,
/// `MSIDDefaultSilentTokenRequestTests.m:1012-1016`). The emulator checks what such a request must hold together:
/// both hub parameters, a registered hub whose redirect URI matches, and a nested redirect URI made for that hub.
/// The code goes to the hub's redirect URI (the hub receives the answer); the code and the refresh tokens remember
/// the hub, and are redeemed only with it.
struct NestedAuthBroker: Sendable, Equatable {
    var clientId: String
    var redirectURI: String
}

extension EmulatorCore {
    /// The hub of a nested app's request; nil for a request without hub parameters.
    func nestedAuthBroker(_ parameter: (String) -> String?, redirectURI: String) throws(EntraError) -> NestedAuthBroker? {
        let hubId = parameter("brk_client_id"), hubRedirect = parameter("brk_redirect_uri")
        guard hubId != nil || hubRedirect != nil else { return nil }
        guard let hubId, !hubId.isEmpty else { throw EntraError.missing("brk_client_id") }
        guard let hubRedirect, !hubRedirect.isEmpty else { throw EntraError.missing("brk_redirect_uri") }
        guard let hub = application(hubId) else { throw EntraError.unknownClient(hubId) }
        guard RedirectURIMatcher.matches(hubRedirect, registered: hub.redirectURIs) else {
            throw EntraError(error: "invalid_request", code: 50011,
                             message: "The redirect URI '\(hubRedirect)' specified in the request does not match the redirect URIs configured for the application '\(hub.clientId)'.")
        }
        guard redirectURI.lowercased().hasPrefix("brk-\(hub.clientId.lowercased())://") else {
            throw EntraError(error: "invalid_request", code: 50011,
                             message: "The redirect URI '\(redirectURI)' of a brokered request must be 'brk-\(hub.clientId)://' followed by the hub's domain.")
        }
        return NestedAuthBroker(clientId: hub.clientId, redirectURI: hubRedirect)
    }

    /// A code or refresh token issued through a hub is redeemed through the same hub, and only so.
    func checkNestedAuthRedemption(issuedThrough broker: String?, _ request: EmulatorRequest) throws(EntraError) {
        let asked = request.form["brk_client_id"]
        guard asked?.lowercased() != broker?.lowercased() else { return }
        throw EntraError(error: "invalid_grant", code: 70000,
                         message: "The provided grant was issued through another broker application.", suberror: "client_mismatch")
    }
}
