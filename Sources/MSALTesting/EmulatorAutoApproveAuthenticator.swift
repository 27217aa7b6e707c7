import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSALCore

/// **Emulator only.** A user agent for the local identity platform emulator started with its auto-approve switch
/// (`autoApproveUsername`, `msal emulator --auto-approve USER`): the emulator answers the authorize request at
/// once with a redirect carrying the authorization code, so this agent GETs the authorization URL without
/// following redirects and hands the `Location` back to MSAL. No page, no person.
///
/// It cannot sign anyone in against Microsoft Entra ID or Azure AD B2C, which always show pages; use the system
/// browser (`MSALWebviewParameters()`) or the device code flow there.
public struct EmulatorAutoApproveAuthenticator: MSALWebAuthenticator {
    /// Creates the authenticator.
    public init() {}

    public func authenticate(_ request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let url = try request.authorizationURL(request.redirectUri)
        let (status, location) = try await NoRedirectSession.get(url)
        guard (300..<400).contains(status), let location, let target = URL(string: location) else {
            throw MSALErrorInfo.internal(.internalErrorAuthorizationFailed,
                                         "The emulator did not approve the sign-in (HTTP \(status)); is its auto-approve switch on?")
        }
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: target)
    }

    public func endSession(url: URL) async throws {
        _ = try await NoRedirectSession.get(url)
    }
}

/// GETs a URL without following redirects.
enum NoRedirectSession {
    final class Delegate: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    /// The status and `Location` header of the answer.
    static func get(_ url: URL) async throws -> (Int, String?) {
        let session = URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.data(for: URLRequest(url: url))
        let http = response as? HTTPURLResponse
        let location = http?.allHeaderFields.first { ($0.key as? String)?.lowercased() == "location" }?.value as? String
        return (http?.statusCode ?? 0, location)
    }
}
