import AuthenticationServices
import Foundation
import MSAL
import MSALTestSupport
import MSALTesting
import Testing
import WebKit
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The notifications of web authentication, recorded in order (names without the "MSALWebAuth" prefix).
final class WebAuthNotices: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(name: String, userInfo: [AnyHashable: Any])] = []
    private var observers: [any NSObjectProtocol] = []

    init() {
        let names: [NSNotification.Name] = [.MSALWebAuthDidStartLoad, .MSALWebAuthDidFinishLoad, .MSALWebAuthDidFail,
                                            .MSALWebAuthDidComplete]
        for name in names {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                guard let self else { return }
                let short = note.name.rawValue.replacingOccurrences(of: "MSALWebAuth", with: "")
                    .replacingOccurrences(of: "Notification", with: "")
                self.lock.withLock { self.seen.append((short, note.userInfo ?? [:])) }
            })
        }
    }

    deinit { observers.forEach(NotificationCenter.default.removeObserver) }

    /// The names seen so far, in order.
    var names: [String] { lock.withLock { seen.map(\.name) } }
    /// The `url` of the last notification named `name`.
    func url(of name: String) -> URL? { lock.withLock { seen.last { $0.name == name }?.userInfo["url"] as? URL } }
    /// The `error` of the last notification named `name`.
    func error(of name: String) -> MSALErrorInfo? {
        lock.withLock { seen.last { $0.name == name }?.userInfo["error"] as? MSALErrorInfo }
    }
}

/// Sign-in in an embedded web view (`webviewType = .wkWebView`, `customWebview`): MSAL's own view and the app's, the
/// navigation machine's decisions carried out through WebKit's delegates, and the notifications.
extension AppleSurfaceTests {
    /// Answers the web view's loads as `provider`'s sign-in page: the authorization URL redirects to the redirect
    /// URI with a code, the end-session URL back with its state; `pauseAtSignIn`: the sign-in page is shown and waits
    /// (the test goes on through the web view).
    @MainActor
    static func answerWebViews(with provider: MSALScriptedIdentityProvider, pauseAtSignIn: Bool = false) {
        SurfaceWebViews.reset()
        SurfaceWebViews.loader = { request in
            let url = request.url!
            if url.path.hasSuffix("/authorize") {
                if pauseAtSignIn { return .page(url) }
                var components = URLComponents(string: AppleFixture.redirectUri)!
                components.queryItems = provider.authorize(url).map { URLQueryItem(name: $0.key, value: $0.value) }
                return .redirect(components.url!)
            }
            var components = URLComponents(string: AppleFixture.redirectUri)!
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            components.queryItems = query.filter { $0.name == "state" }
            return .redirect(components.url!)
        }
    }

    @MainActor
    func embeddedSignIn(_ webview: MSALWebviewParameters, app: MSALPublicClientApplication) -> Task<MSALResult, any Error> {
        Task { try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)) }
    }

    @Test(".wkWebView signs in in MSAL's own view over the parent, posts DidStartLoad then DidComplete, and closes the view")
    @MainActor
    func ownWebView() async throws {
        let (provider, shown) = AppleFixture.interactive()
        Self.answerWebViews(with: provider, pauseAtSignIn: true)
        let notices = WebAuthNotices()
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        webview.webviewType = .wkWebView
        let app = try AppleFixture.app(provider)
        let call = embeddedSignIn(webview, app: app)
        try await eventually { notices.names.contains("DidFinishLoad") }
        let webView = try #require(SurfaceWebViews.loaded.last)
        #expect(webView.configuration.applicationNameForUserAgent == "PKeyAuth/1.0")
        #expect(webView.configuration.websiteDataStore.isPersistent)
        #if canImport(UIKit)
        let sheet = try #require(shown.controller.presentedViewController as? UINavigationController)
        #expect(sheet.modalPresentationStyle == .fullScreen)
        #expect(sheet.isModalInPresentation)
        let content = try #require(sheet.viewControllers.first)
        #expect(content.view === webView)
        #expect(content.navigationItem.leftBarButtonItem?.surfaceSystemItem == .cancel)
        #else
        let window = try #require(webView.window)
        #expect(window.surfaceStyleMask.contains(.closable))
        #expect(NSApplication.shared.keyWindow === window)
        #endif
        #expect(SurfaceAuthenticationSessions.history.isEmpty)
        #expect(notices.names == ["DidStartLoad", "DidFinishLoad"])

        // The user signs in: the page goes to the redirect URI with the code.
        let authorize = try #require(notices.url(of: "DidStartLoad"))
        var components = URLComponents(string: AppleFixture.redirectUri)!
        components.queryItems = provider.authorize(authorize).map { URLQueryItem(name: $0.key, value: $0.value) }
        webView.surfaceClickLink(to: components.url!)
        let result = try await value(of: call)
        #expect(!result.accessToken.isEmpty)
        #expect(notices.names == ["DidStartLoad", "DidFinishLoad", "DidStartLoad", "DidComplete"])
        #expect(notices.url(of: "DidComplete")?.scheme == "msauth.com.example.app")
        #if canImport(UIKit)
        #expect(shown.controller.presentedViewController == nil)
        #else
        #expect(!NSApplication.shared.windows.contains { $0 === window })
        #endif
        #expect(webView.navigationDelegate == nil)
    }

    @Test("Cancelling MSAL's view (iOS: its Cancel button, with presentationStyle as the sheet's style; macOS: closing its window) is userCanceled with DidFail")
    @MainActor
    func ownWebViewCanceled() async throws {
        let (provider, shown) = AppleFixture.interactive()
        Self.answerWebViews(with: provider, pauseAtSignIn: true)
        let notices = WebAuthNotices()
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        webview.webviewType = .wkWebView
        webview.prefersEphemeralWebBrowserSession = true
        #if canImport(UIKit)
        webview.presentationStyle = .formSheet
        #endif
        let call = embeddedSignIn(webview, app: try AppleFixture.app(provider))
        try await eventually { notices.names.contains("DidFinishLoad") }
        let webView = try #require(SurfaceWebViews.loaded.last)
        #expect(!webView.configuration.websiteDataStore.isPersistent)
        #if canImport(UIKit)
        let sheet = try #require(shown.controller.presentedViewController as? UINavigationController)
        #expect(sheet.modalPresentationStyle == .formSheet)
        sheet.viewControllers.first?.navigationItem.leftBarButtonItem?.surfaceTap()
        #else
        try #require(webView.window).close()
        #endif
        let error = await #expect(throws: MSALErrorInfo.self) { try await value(of: call) }
        #expect(error?.code == .userCanceled)
        #expect(notices.names.last == "DidFail")
        #expect(notices.error(of: "DidFail")?.code == .userCanceled)
        #if canImport(UIKit)
        #expect(shown.controller.presentedViewController == nil)
        #endif
    }

    @Test("customWebview: sign-in in the app's web view, nothing presented, a new-window link goes to the system browser")
    @MainActor
    func customWebView() async throws {
        let (provider, shown) = AppleFixture.interactive()
        Self.answerWebViews(with: provider, pauseAtSignIn: true)
        #if canImport(UIKit)
        SurfaceScreen.resetOpenedURLs()
        #else
        NSWorkspace.shared.surfaceReset()
        #endif
        let notices = WebAuthNotices()
        let appWebView = WKWebView(frame: .zero, configuration: MSALWebviewParameters.defaultWKWebviewConfiguration)
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        webview.customWebview = appWebView
        let call = embeddedSignIn(webview, app: try AppleFixture.app(provider))
        try await eventually { notices.names.contains("DidFinishLoad") }
        #expect(SurfaceWebViews.loaded.last === appWebView)
        #expect(appWebView.navigationDelegate != nil)
        #if canImport(UIKit)
        #expect(shown.controller.presentedViewController == nil)
        #endif

        let help = URL(string: "https://go.microsoft.com/fwlink/?linkid=help")!
        appWebView.surfaceClickLink(to: help, newWindow: true)
        #if canImport(UIKit)
        #expect(SurfaceScreen.openedURLs == [help])
        #else
        #expect(NSWorkspace.shared.surfaceOpenedURLs == [help])
        #endif

        let authorize = try #require(notices.url(of: "DidStartLoad"))
        var components = URLComponents(string: AppleFixture.redirectUri)!
        components.queryItems = provider.authorize(authorize).map { URLQueryItem(name: $0.key, value: $0.value) }
        appWebView.surfaceClickLink(to: components.url!)
        #expect(try await !value(of: call).accessToken.isEmpty)
        #expect(notices.names.last == "DidComplete")
        #expect(appWebView.navigationDelegate == nil && appWebView.uiDelegate == nil)
    }

    @Test("cancelCurrentWebAuthSession ends a sign-in in MSAL's view: userCanceled, DidFail, the view closed")
    @MainActor
    func cancelledByTheApp() async throws {
        let (provider, shown) = AppleFixture.interactive()
        Self.answerWebViews(with: provider, pauseAtSignIn: true)
        let notices = WebAuthNotices()
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        webview.webviewType = .wkWebView
        let call = embeddedSignIn(webview, app: try AppleFixture.app(provider))
        try await eventually { notices.names.contains("DidFinishLoad") }
        #expect(MSALPublicClientApplication.cancelCurrentWebAuthSession())
        let error = await #expect(throws: MSALErrorInfo.self) { try await value(of: call) }
        #expect(error?.code == .userCanceled)
        #expect(notices.names.last == "DidFail")
        #if canImport(UIKit)
        #expect(shown.controller.presentedViewController == nil)
        #endif
    }

    @Test("A page that leaves https is not loaded: internalErrorNonHttpsRedirect, and the view is closed")
    @MainActor
    func nonHttpsRefused() async throws {
        let (provider, shown) = AppleFixture.interactive()
        SurfaceWebViews.reset()
        SurfaceWebViews.loader = { _ in .redirect(URL(string: "http://login.example.net/phish")!) }
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        webview.webviewType = .wkWebView
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await value(of: self.embeddedSignIn(webview, app: try AppleFixture.app(provider)))
        }
        #expect(error?.internalCode == .internalErrorNonHttpsRedirect)
        #if canImport(UIKit)
        #expect(shown.controller.presentedViewController == nil)
        #endif
    }

    @Test("Browser sign-out with .wkWebView opens the end-session page in the web view and checks its state")
    @MainActor
    func embeddedSignOut() async throws {
        let (provider, shown) = AppleFixture.interactive()
        Self.answerWebViews(with: provider)
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        webview.webviewType = .wkWebView
        let app = try AppleFixture.app(provider)
        let result = try await value(of: embeddedSignIn(webview, app: app))
        let signout = MSALSignoutParameters(webviewParameters: webview)
        signout.signoutFromBrowser = true
        #expect(try await app.signout(with: result.account, signoutParameters: signout))
        #expect(SurfaceWebViews.loaded.count == 2)
        #expect(try app.allAccounts().isEmpty)
        #expect(SurfaceAuthenticationSessions.history.isEmpty)
    }
}

import MSALEmulator

/// The embedded web view against the emulator over HTTPS: the surface's web view loads each page from the emulator
/// (redirects included, each decided by MSAL's navigation delegate), as WebKit would.
extension AppleSurfaceTests {
    @MainActor
    static func loadFromEmulator(_ http: MSALCurlHTTPClient) {
        SurfaceWebViews.reset()
        SurfaceWebViews.loader = { request in
            guard let url = request.url else { return .failure(URLError(.badURL)) }
            do {
                let response = try await http.send(MSALHTTPRequest(method: "GET", url: url, timeout: 30))
                let location = response.headers.first { $0.key.lowercased() == "location" }?.value
                if (300..<400).contains(response.statusCode), let location,
                   let target = URL(string: location, relativeTo: url)?.absoluteURL {
                    return .redirect(target)
                }
                return .page(url)
            } catch {
                return .failure(error)
            }
        }
    }

    @Test(".wkWebView and customWebview sign in against the emulator over HTTPS, and sign out in the web view")
    @MainActor
    func embeddedAgainstEmulator() async throws {
        AppleFixture.resetKeychain()
        SurfaceAuthenticationSessions.reset()
        let shown = ShownController()
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        Self.loadFromEmulator(http)
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId,
                                                       redirectUri: "msauth.com.example.msaldemo://auth",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.httpClient = http
        config.cacheConfig.keychainSharingGroup = AppleFixture.group
        let app = try MSALPublicClientApplication(configuration: config)

        let own = MSALWebviewParameters(authPresentationViewController: shown.controller)
        own.webviewType = .wkWebView
        let first = try await value(of: embeddedSignIn(own, app: app))
        #expect(first.account.username == configuration.defaults.username)

        let appWebView = WKWebView(frame: .zero, configuration: MSALWebviewParameters.defaultWKWebviewConfiguration)
        let custom = MSALWebviewParameters(authPresentationViewController: shown.controller)
        custom.customWebview = appWebView
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: custom)
        parameters.promptType = .login
        let second = try await app.acquireToken(with: parameters)
        #expect(second.account.identifier == first.account.identifier)
        #expect(SurfaceWebViews.loaded.count == 2 && SurfaceWebViews.loaded.last === appWebView)
        #expect(SurfaceAuthenticationSessions.history.isEmpty)

        let signout = MSALSignoutParameters(webviewParameters: custom)
        signout.signoutFromBrowser = true
        #expect(try await app.signout(with: second.account, signoutParameters: signout))
        #expect(SurfaceWebViews.loaded.count == 3)
        #expect(try app.allAccounts().isEmpty)
        await emulator.stop()
    }
}
