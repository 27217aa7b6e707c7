package import Foundation

/// The browser sign-out round trip of a user agent that waits for the redirect URI (the system authentication
/// session, an embedded web view): the end-session URL asks the server to return to the redirect URI with the
/// request's `state`, and a return with another `state` is refused.
package enum EndSessionURL {
    /// `url` with `post_logout_redirect_uri` and `state` added.
    package static func make(_ url: URL, request: MSALWebAuthenticationRequest) throws -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var query = components?.queryItems ?? []
        query.append(URLQueryItem(name: "post_logout_redirect_uri", value: request.redirectUri))
        query.append(URLQueryItem(name: "state", value: request.state))
        components?.queryItems = query
        guard let signOutURL = components?.url else {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter, "The end-session URL could not be built.",
                                         correlationId: request.correlationId)
        }
        return signOutURL
    }

    /// Throws ``MSALInternalError/internalErrorInvalidState`` when `callback` carries another `state` than the
    /// request's.
    package static func check(_ callback: URL, request: MSALWebAuthenticationRequest) throws {
        let returned = MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: callback)
        if let state = returned.parameters["state"], state != request.state {
            throw MSALErrorInfo.internal(.internalErrorInvalidState,
                                         "The end-session endpoint returned another state than the one sent.",
                                         correlationId: request.correlationId)
        }
    }
}
