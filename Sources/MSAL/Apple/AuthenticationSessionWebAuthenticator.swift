#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
public import AuthenticationServices
public import Foundation
#if canImport(UIKit)
public import UIKit
#elseif canImport(AppKit)
public import AppKit
#endif

/// Interactive sign-in and browser sign-out in the system authentication session (`ASWebAuthenticationSession`):
/// the default user agent on Apple platforms. The redirect URI must use the app's custom scheme, such as
/// `msauth.<bundle id>://auth`.
///
/// The session is presented over the window of ``MSALWebviewParameters/parentViewController``, else the key window
/// of the foreground active scene (macOS: the key, else main, window).
///
/// Errors: ``MSALError/userCanceled`` when the user closes the sheet;
/// ``MSALInternalError/internalErrorNoViewController`` when there is no window to present over;
/// ``MSALInternalError/internalErrorInvalidRedirectURI`` for a redirect URI without a scheme;
/// ``MSALInternalError/internalErrorSessionCanceled`` when the session cannot start;
/// ``MSALInternalError/internalErrorInvalidState`` when sign-out returns another `state`.
public final class MSALAuthenticationSessionWebAuthenticator: NSObject, MSALDirectWebAuthenticator,
    ASWebAuthenticationPresentationContextProviding, @unchecked Sendable {
    /// The running session, kept alive until it completes, and the window it is presented over.
    @MainActor private var running: ASWebAuthenticationSession?
    @MainActor private var anchor: ASPresentationAnchor?

    /// Creates the authenticator.
    public override init() { super.init() }

    public func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let scheme = try callbackScheme(request)
        let callback = try await run(url, scheme: scheme, request: request)
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: callback)
    }

    /// Opens the end-session URL in the authentication session, asking the server to return to the redirect URI
    /// with the request's `state` (`post_logout_redirect_uri`), and waits for it: the session's cookies are gone
    /// when this returns.
    public func endSession(url: URL, request: MSALWebAuthenticationRequest) async throws {
        let scheme = try callbackScheme(request)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var query = components?.queryItems ?? []
        query.append(URLQueryItem(name: "post_logout_redirect_uri", value: request.redirectUri))
        query.append(URLQueryItem(name: "state", value: request.state))
        components?.queryItems = query
        guard let signOutURL = components?.url else {
            throw MSALErrorInfo.internal(.internalErrorInvalidParameter, "The end-session URL could not be built.",
                                         correlationId: request.correlationId)
        }
        let callback = try await run(signOutURL, scheme: scheme, request: request)
        let returned = MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: callback)
        if let state = returned.parameters["state"], state != request.state {
            throw MSALErrorInfo.internal(.internalErrorInvalidState,
                                         "The end-session endpoint returned another state than the one sent.",
                                         correlationId: request.correlationId)
        }
    }

    /// The scheme of the redirect URI, which the session waits for.
    private func callbackScheme(_ request: MSALWebAuthenticationRequest) throws -> String {
        guard let scheme = URLComponents(string: request.redirectUri)?.scheme, !scheme.isEmpty else {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI,
                                         "The authentication session needs a redirect URI with a custom scheme.",
                                         correlationId: request.correlationId)
        }
        return scheme
    }

    /// Shows `url` in a session and returns the callback URL it ends at.
    private func run(_ url: URL, scheme: String, request: MSALWebAuthenticationRequest) async throws -> URL {
        let presenter = request.webviewParameters?.presenter ?? ObjectReference(nil, weak: true)
        let ephemeral = request.prefersEphemeralSession
        let correlationId = request.correlationId
        let resumed = LockedBox(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let finish: @Sendable (Result<URL, any Error>) -> Void = { result in
                    guard resumed.withLock({ done in defer { done = true }; return !done }) else { return }
                    continuation.resume(with: result)
                }
                Task { @MainActor in
                    self.start(url, scheme: scheme, presenter: presenter, ephemeral: ephemeral,
                               correlationId: correlationId, finish: finish)
                }
            }
        } onCancel: {
            Task { @MainActor in self.running?.cancel() }
        }
    }

    @MainActor
    private func start(_ url: URL, scheme: String, presenter: ObjectReference, ephemeral: Bool, correlationId: UUID,
                       finish: @escaping @Sendable (Result<URL, any Error>) -> Void) {
        guard running == nil else {
            finish(.failure(MSALErrorInfo.internal(.internalErrorInteractiveSessionAlreadyRunning,
                                                   "Another authentication session is already running.",
                                                   correlationId: correlationId)))
            return
        }
        guard let window = PresentationAnchors.anchor(for: presenter.object) else {
            finish(.failure(MSALErrorInfo.internal(
                .internalErrorNoViewController,
                "There is no window to present sign-in over: pass a view controller whose view is in a window "
                    + "(MSALWebviewParameters(authPresentationViewController:)), or call while a scene is active.",
                correlationId: correlationId)))
            return
        }
        let session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme) { callback, error in
            let outcome: Result<URL, any Error>
            if let callback {
                outcome = .success(callback)
            } else {
                outcome = .failure(Self.mapped(error, correlationId: correlationId))
            }
            Task { @MainActor in
                self.running = nil
                self.anchor = nil
                finish(outcome)
            }
        }
        session.prefersEphemeralWebBrowserSession = ephemeral
        session.presentationContextProvider = self
        running = session
        anchor = window
        if !session.start() {
            running = nil
            anchor = nil
            finish(.failure(MSALErrorInfo.internal(.internalErrorSessionCanceled,
                                                   "The authentication session could not start.",
                                                   correlationId: correlationId)))
        }
    }

    /// MSAL's error for the session's: the user closing the sheet is ``MSALError/userCanceled``; a missing or
    /// invalid presentation context ``MSALInternalError/internalErrorNoViewController``.
    private static func mapped(_ error: (any Error)?, correlationId: UUID) -> MSALErrorInfo {
        let nsError = error.map { $0 as NSError }
        if nsError?.domain == ASWebAuthenticationSessionErrorDomain {
            switch ASWebAuthenticationSessionError.Code(rawValue: nsError?.code ?? 0) {
            case .presentationContextNotProvided, .presentationContextInvalid:
                return MSALErrorInfo.internal(.internalErrorNoViewController,
                                              "The authentication session had no valid window to present over.",
                                              correlationId: correlationId)
            default:
                break
            }
        }
        return MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                             description: "The user closed the sign-in session.", correlationId: correlationId)
    }

    /// The window the session is shown over, chosen when it started.
    public nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor ?? ASPresentationAnchor() }
    }
}
#endif
