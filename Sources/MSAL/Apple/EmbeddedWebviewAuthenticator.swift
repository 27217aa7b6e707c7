#if canImport(WebKit) && (canImport(UIKit) || canImport(AppKit))
public import Foundation
import WebKit

/// Interactive sign-in in an embedded web view (`WKWebView`), MSAL for iOS/macOS's `webviewType = .wkWebView`: used
/// for calls whose ``MSALWebviewParameters`` ask for it (``MSALWebviewType/wkWebView``, or a
/// ``MSALWebviewParameters/customWebview``).
///
/// - MSAL's own view: on iOS a navigation controller with a Cancel button, presented modally (with
///   ``MSALWebviewParameters/presentationStyle``, full screen by default) over
///   ``MSALWebviewParameters/parentViewController``, else over the top controller of the key window of the
///   foreground active scene; on macOS a 420×650 window whose close button cancels. Its web view uses
///   ``MSALWebviewParameters/defaultWKWebviewConfiguration``, with a non-persistent website data store when
///   ``MSALWebviewParameters/prefersEphemeralWebBrowserSession`` is set.
/// - The app's web view (``MSALWebviewParameters/customWebview``): MSAL becomes its navigation and UI delegate,
///   loads the sign-in page in it and shows and hides nothing: the app shows it, and hides it on
///   `NSNotification.Name.MSALWebAuthDidComplete` or `.MSALWebAuthDidFail`.
///
/// What the web view may load, when sign-in ends and with what error is decided as MSAL for iOS/macOS decides it:
/// only `https` pages, links to new windows in the system browser, the flow ended at the redirect URI (which, unlike
/// the authentication session's, may be any URI: `https` or a custom scheme). The `MSALWebAuth…` notifications are
/// posted as MSAL for iOS/macOS posts them. Closing the view is ``MSALError/userCanceled``.
///
/// Browser sign-out (`signoutFromBrowser`) with these parameters opens the end-session page in the web view too.
public final class MSALEmbeddedWebviewAuthenticator: MSALDirectWebAuthenticator, @unchecked Sendable {
    /// The running session, kept alive until it ends (the web view holds its delegates weakly).
    @MainActor private var running: EmbeddedWebviewSession?

    /// Creates the authenticator.
    public init() {}

    public func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let callback = try await run(url, request: request)
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: callback)
    }

    /// Opens the end-session URL in the web view, asking the server to return to the redirect URI with the
    /// request's `state`, and waits for that return.
    public func endSession(url: URL, request: MSALWebAuthenticationRequest) async throws {
        let callback = try await run(EndSessionURL.make(url, request: request), request: request)
        try EndSessionURL.check(callback, request: request)
    }

    private func run(_ url: URL, request: MSALWebAuthenticationRequest) async throws -> URL {
        let parameters = request.webviewParameters.map(WebviewChoice.init) ?? WebviewChoice()
        let redirectUri = request.redirectUri
        let correlationId = request.correlationId
        let deviceAuthentication = request.deviceAuthentication
        return try await MainActorUserAgentCall.run { finish in
            self.start(url, parameters: parameters, redirectUri: redirectUri, correlationId: correlationId,
                       deviceAuthentication: deviceAuthentication, finish: finish)
        } cancel: {
            self.running?.cancel()
        }
    }

    @MainActor
    private func start(_ url: URL, parameters: WebviewChoice, redirectUri: String, correlationId: UUID,
                       deviceAuthentication: (@Sendable (PKeyAuthChallenge, URL) -> String)?,
                       finish: @escaping @Sendable (Result<URL, any Error>) -> Void) {
        guard running == nil else {
            finish(.failure(MainActorUserAgentCall.alreadyRunning("web view sign-in", correlationId: correlationId)))
            return
        }
        let webView: WKWebView
        let presentation: (any EmbeddedWebviewPresentation)?
        if let custom = parameters.customWebview {
            webView = custom
            presentation = nil
        } else {
            let configuration = MSALWebviewParameters.defaultWKWebviewConfiguration
            if parameters.ephemeral { configuration.websiteDataStore = .nonPersistent() }
            webView = WKWebView(frame: .zero, configuration: configuration)
            guard let shown = EmbeddedWebviewSheet.make(webView, parameters: parameters) else {
                finish(.failure(MainActorUserAgentCall.noWindow(correlationId: correlationId)))
                return
            }
            presentation = shown
        }
        let session = EmbeddedWebviewSession(webView: webView, presentation: presentation, redirectURI: redirectUri,
                                             correlationId: correlationId,
                                             deviceAuthentication: deviceAuthentication) { [weak self] result in
            Task { @MainActor in
                self?.running = nil
                finish(result)
            }
        }
        running = session
        session.start(url)
    }
}

/// What the web view parameters say about the embedded view, read when the call starts.
struct WebviewChoice: @unchecked Sendable {
    var presenter: AnyObject?
    var customWebview: WKWebView?
    var ephemeral = false
    var presentationStyleRawValue = 0

    init() {}

    init(_ parameters: MSALWebviewParameters) {
        presenter = parameters.presenter.object
        customWebview = parameters.customWebviewObject.object as? WKWebView
        ephemeral = parameters.prefersEphemeralWebBrowserSession
        presentationStyleRawValue = parameters.presentationStyleRawValue
    }
}
#endif
