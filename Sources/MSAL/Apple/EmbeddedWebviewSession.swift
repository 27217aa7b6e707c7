// One sign-in in an embedded web view: WebKit's navigation and UI delegates feed the navigation machine
// (EmbeddedWebviewNavigation) and carry out each of its steps.
#if canImport(WebKit)
import Foundation
import WebKit

/// How MSAL's own sign-in view is shown and closed (a sheet on iOS, a window on macOS); none for the app's web view.
@MainActor
protocol EmbeddedWebviewPresentation: AnyObject {
    /// Shows the web view; `onCancel` runs when the user closes it.
    func show(onCancel: @escaping @MainActor () -> Void)
    /// Closes the view, then runs `completion`.
    func dismiss(then completion: @escaping @MainActor () -> Void)
}

/// One sign-in in a web view: the delegate of its navigation and windows until the flow ends.
@MainActor
final class EmbeddedWebviewSession: NSObject, WKNavigationDelegate, WKUIDelegate {
    private var navigation: EmbeddedWebviewNavigation
    private let webView: WKWebView
    private let presentation: (any EmbeddedWebviewPresentation)?
    private var finish: (@Sendable (Result<URL, any Error>) -> Void)?

    /// A session in `webView`, shown by `presentation` (nil: the app shows its own web view), that reports how it
    /// ended to `finish`, once.
    init(webView: WKWebView, presentation: (any EmbeddedWebviewPresentation)?, redirectURI: String, correlationId: UUID,
         deviceAuthentication: (@Sendable (PKeyAuthChallenge, URL) -> String)?,
         finish: @escaping @Sendable (Result<URL, any Error>) -> Void) {
        navigation = EmbeddedWebviewNavigation(redirectURI: redirectURI, correlationId: correlationId,
                                               deviceAuthentication: deviceAuthentication)
        self.webView = webView
        self.presentation = presentation
        self.finish = finish
    }

    /// Loads `url` in the web view and shows it.
    func start(_ url: URL) {
        webView.navigationDelegate = self
        webView.uiDelegate = self
        // The first request says the web view answers PKeyAuth (`MSIDAADOAuthEmbeddedWebviewController.m:62-63`;
        // its user agent says so on every request).
        var request = URLRequest(url: url)
        request.setValue(PKeyAuthChallenge.advertisingVersion, forHTTPHeaderField: PKeyAuthChallenge.advertisingHeader)
        webView.load(request)
        presentation?.show { [weak self] in self?.apply(.userCanceled) }
    }

    /// Ends the sign-in as cancelled (the call's task was cancelled).
    func cancel() {
        apply(.cancelled)
    }

    /// Hands `event` to the machine and carries out its step; the policy for a navigation.
    @discardableResult
    private func apply(_ event: EmbeddedWebviewNavigation.Event) -> EmbeddedWebviewNavigation.Policy? {
        let step = navigation.handle(event)
        var outcome = step.outcome
        if let address = step.openInBrowser, !ExternalBrowser.open(address), case .failure = outcome {
            outcome = .failure(.internal(.internalErrorAttemptToOpenURLFromExtension,
                                         "The sign-in page asked to continue in the system browser, which an app extension cannot open.",
                                         correlationId: navigation.correlationId))
        }
        for notice in step.notices { notice.post(webview: webView) }
        if let outcome { end(outcome) }
        if let load = step.load {
            // The answer to a PKeyAuth challenge, loaded instead of the navigation.
            var request = URLRequest(url: load.url)
            for (name, value) in load.headers { request.setValue(value, forHTTPHeaderField: name) }
            webView.load(request)
        }
        return step.policy
    }

    private func end(_ outcome: EmbeddedWebviewNavigation.Outcome) {
        webView.stopLoading()
        if webView.navigationDelegate === self { webView.navigationDelegate = nil }
        if webView.uiDelegate === self { webView.uiDelegate = nil }
        guard let finish else { return }
        self.finish = nil
        let result: Result<URL, any Error>
        switch outcome {
        case .redirect(let url): result = .success(url)
        case .failure(let error): result = .failure(error)
        }
        if let presentation {
            presentation.dismiss { finish(result) }
        } else {
            finish(result)
        }
    }

    // MARK: WKNavigationDelegate

    func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
                 decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void) {
        let target: EmbeddedWebviewNavigation.Target
        if let frame = navigationAction.targetFrame {
            target = frame.isMainFrame ? .mainFrame : .subframe
        } else {
            target = .newWindow
        }
        let policy = apply(.navigation(navigationAction.request.url, target: target,
                                       linkActivated: navigationAction.navigationType == .linkActivated))
        decisionHandler(policy == .allow ? .allow : .cancel)
    }

    func webView(_ webView: WKWebView, didStartProvisionalNavigation navigation: WKNavigation!) {}

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        apply(.finishedLoading(webView.url))
    }

    func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error) {
        apply(.failedLoading(error))
    }

    func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error) {
        apply(.failedLoading(error))
    }

    // MARK: WKUIDelegate

    /// No second web view is made: an https page asking for a window opens in the system browser.
    func webView(_ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
                 for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures) -> WKWebView? {
        apply(.newWindow(navigationAction.request.url, linkActivated: navigationAction.navigationType == .linkActivated))
        return nil
    }
}
#endif
