#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
public import AuthenticationServices
public import Foundation

/// Interactive sign-in in the system authentication session (`ASWebAuthenticationSession`): the default user agent
/// on Apple platforms. The redirect URI must use the app's custom scheme, such as `msauth.<bundle id>://auth`.
///
/// Errors: `MSALError/userCanceled` when the user closes the sheet; `MSALInternalError/internalErrorInvalidRedirectURI`
/// for a redirect URI without a scheme; `MSALInternalError/internalErrorSessionCanceled` when the session cannot
/// start.
public final class MSALAuthenticationSessionWebAuthenticator: NSObject, MSALDirectWebAuthenticator,
    ASWebAuthenticationPresentationContextProviding, @unchecked Sendable {
    /// The running session, kept alive until it completes.
    private let running = LockedBox<ASWebAuthenticationSession?>(nil)

    /// Creates the authenticator.
    public override init() { super.init() }

    public func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        guard let scheme = URLComponents(string: request.redirectUri)?.scheme, !scheme.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI,
                                         "The authentication session needs a redirect URI with a custom scheme.",
                                         correlationId: request.correlationId)
        }
        let callback = try await present(url, scheme: scheme, ephemeral: request.prefersEphemeralSession,
                                         correlationId: request.correlationId)
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: callback)
    }

    private func present(_ url: URL, scheme: String, ephemeral: Bool, correlationId: UUID) async throws -> URL {
        let resumed = LockedBox(false)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
            let finish: @Sendable (Result<URL, any Error>) -> Void = { result in
                guard resumed.withLock({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(with: result)
            }
            Task { @MainActor in
                let session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme) { [running] callback, _ in
                    running.set(nil)
                    if let callback {
                        finish(.success(callback))
                    } else {
                        finish(.failure(MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                                                      description: "The user closed the sign-in session.",
                                                      correlationId: correlationId)))
                    }
                }
                session.prefersEphemeralWebBrowserSession = ephemeral
                session.presentationContextProvider = self
                running.set(session)
                if !session.start() {
                    running.set(nil)
                    finish(.failure(MSALErrorInfo.internal(.internalErrorSessionCanceled,
                                                           "The authentication session could not start.",
                                                           correlationId: correlationId)))
                }
            }
        }
    }

    /// The window the session is shown over: a new anchor, which the system places over the key window.
    public func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        MainActor.assumeIsolated { ASPresentationAnchor() }
    }
}
#endif
