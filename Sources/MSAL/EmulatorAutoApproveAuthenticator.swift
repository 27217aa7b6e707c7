public import Foundation
public import MSALCore

/// **Emulator only.** A user agent for the local identity platform emulator started with its auto-approve switch
/// (`autoApproveUsername`, `msal-emulator serve --auto-approve USER`): the emulator answers the authorize request
/// at once with a redirect carrying the authorization code, so this agent GETs the authorization URL through an
/// MSAL transport (which never follows redirects) and hands the `Location` back to MSAL. No page, no person.
///
/// It cannot sign anyone in against Microsoft Entra ID or Azure AD B2C, which always show pages; use the system
/// browser (`MSALWebviewParameters()`) or the device code flow there.
public struct EmulatorAutoApproveAuthenticator: MSALDirectWebAuthenticator {
    private let httpClient: any MSALHTTPClient

    /// Creates the authenticator on `httpClient`: give it the application's transport, so that the emulator's
    /// HTTPS address is trusted the same way.
    public init(httpClient: any MSALHTTPClient) {
        self.httpClient = httpClient
    }

    /// Creates the authenticator on MSAL's default transport (`MSALDefaultHTTPClient.shared`).
    public init() {
        self.init(httpClient: MSALDefaultHTTPClient.shared)
    }

    public func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let response = try await httpClient.send(MSALHTTPRequest(method: "GET", url: url, timeout: 30))
        let location = response.headers.first { $0.key.lowercased() == "location" }?.value
        guard (300..<400).contains(response.statusCode), let location, let target = URL(string: location) else {
            throw MSALErrorInfo.internal(.internalErrorAuthorizationFailed,
                                         "The emulator did not approve the sign-in (HTTP \(response.statusCode)); is its auto-approve switch on?")
        }
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: target)
    }

    public func endSession(url: URL) async throws {
        _ = try await httpClient.send(MSALHTTPRequest(method: "GET", url: url, timeout: 30))
    }
}
