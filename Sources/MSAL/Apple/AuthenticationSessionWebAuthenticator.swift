#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
public import Foundation
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
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
///
/// The class itself is not isolated to an actor (create it anywhere): the session's presentation context is a
/// separate main-actor object, so that the class conforms to nothing Xcode 26.4 made `@MainActor`, and the session's
/// completion handler is `@Sendable`, so that it runs wherever AuthenticationServices calls it (on macOS, a
/// background queue).
public final class MSALAuthenticationSessionWebAuthenticator: NSObject, MSALDirectWebAuthenticator, @unchecked Sendable {
    /// The running session, kept alive until it completes, and its presentation context (the session holds it
    /// weakly).
    @MainActor private var running: ASWebAuthenticationSession?
    @MainActor private var context: SessionPresentationContext?

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
        let callback = try await run(EndSessionURL.make(url, request: request), scheme: scheme, request: request)
        try EndSessionURL.check(callback, request: request)
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
        return try await MainActorUserAgentCall.run { finish in
            self.start(url, scheme: scheme, presenter: presenter, ephemeral: ephemeral, correlationId: correlationId,
                       finish: finish)
        } cancel: {
            self.running?.cancel()
        }
    }

    @MainActor
    private func start(_ url: URL, scheme: String, presenter: ObjectReference, ephemeral: Bool, correlationId: UUID,
                       finish: @escaping @Sendable (Result<URL, any Error>) -> Void) {
        guard running == nil else {
            finish(.failure(MainActorUserAgentCall.alreadyRunning("authentication session", correlationId: correlationId)))
            return
        }
        guard let window = PresentationAnchors.anchor(for: presenter.object) else {
            finish(.failure(MainActorUserAgentCall.noWindow(correlationId: correlationId)))
            return
        }
        // @Sendable: not isolated to the main actor, which this method is, so no run-time isolation check traps when
        // AuthenticationServices calls it off the main thread.
        let completion: ASWebAuthenticationSession.CompletionHandler = { @Sendable callback, error in
            let outcome: Result<URL, any Error>
            if let callback {
                outcome = .success(callback)
            } else {
                outcome = .failure(Self.mapped(error, correlationId: correlationId))
            }
            Task { @MainActor in
                self.running = nil
                self.context = nil
                finish(outcome)
            }
        }
        let session: ASWebAuthenticationSession
        if #available(iOS 17.4, macOS 14.4, *) {
            session = ASWebAuthenticationSession(url: url, callback: .customScheme(scheme), completionHandler: completion)
        } else {
            session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
        }
        let presentation = SessionPresentationContext(window: window)
        session.prefersEphemeralWebBrowserSession = ephemeral
        session.presentationContextProvider = presentation
        running = session
        context = presentation
        if !session.start() {
            running = nil
            context = nil
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
}

/// The presentation context of one authentication session: the window chosen before it started.
///
/// Its own main-actor class (AuthenticationServices holds it weakly; the authenticator keeps it until the session
/// ends). The witness is nonisolated, which satisfies both generations of the requirement: nonisolated in Xcode 16,
/// where a main-actor witness is an error, and main-actor isolated with the whole protocol from Xcode 26.4.
@MainActor
final class SessionPresentationContext: NSObject, ASWebAuthenticationPresentationContextProviding {
    /// The window the session is shown over.
    nonisolated let window: ASPresentationAnchor

    init(window: ASPresentationAnchor) {
        self.window = window
    }

    nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        window
    }
}
#endif
