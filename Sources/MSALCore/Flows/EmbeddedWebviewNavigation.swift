package import Foundation

/// How sign-in in an embedded web view (`webviewType = .wkWebView`, `customWebview`) goes, decided as MSAL for
/// iOS/macOS decides it: what the web view may load, when the flow ends and with what, which notifications the app
/// is told. Pure: the WebKit glue feeds it the web view's events and carries out each ``Step``.
///
/// The rules, in order, for a navigation the web view asks about:
/// 0. `urn:http-auth:PKeyAuth?…` (the identity platform asking for the device's proof) is answered, as MSAL for
///    iOS/macOS's common core does (`MSIDAADOAuthEmbeddedWebviewController.m:240-258`, `MSIDPKeyAuthHandler.m:67-128`):
///    the navigation is cancelled and a GET of its `SubmitUrl` (with `x-client-Ver`) is loaded with the answer in
///    `Authorization` (signed with the device's registration, else the empty form) and `x-ms-PkeyAuth+: 1.0`; a
///    challenge without a `SubmitUrl` ends the flow (``MSALInternalError/internalErrorAuthorizationFailed``).
/// 1. `msauth://` (a broker or device-registration request) ends the flow, as in MSAL for iOS/macOS, whose web view
///    opens no broker either: ``MSALError/workplaceJoinRequired`` for device registration (`wpj`, `enroll`,
///    `compliance`; a `wpj` request's `https` install link opens in the system browser), else
///    ``MSALInternalError/internalErrorInvalidResponse`` (no authorization response). `browser://` (the page asks to continue in the browser) opens
///    the same address over `https` in the system browser and ends the flow as cancelled (``MSALError/userCanceled``).
/// 2. An address that starts with the redirect URI (compared without regard to case) ends the flow with that
///    address: the authorization response.
/// 3. `about:blank` and `about:srcdoc` load.
/// 4. A clicked link to a new window over `https`, or to any scheme that is not `http(s)` (`mailto:`, an app's
///    scheme), opens in the system browser (the system routes it) and stays out of the web view; `javascript:`,
///    `data:`, `blob:`, `file:` and `about:` links are not followed at all.
/// 5. Anything else that is not `https` ends the flow with ``MSALInternalError/internalErrorNonHttpsRedirect``.
/// 6. Everything else loads.
///
/// A page asking for a new window (other than a clicked link) gets none; an `https` one opens in the system
/// browser. A load failure ends the flow, except a cancelled load (`NSURLErrorCancelled`) and WebKit's own
/// interruptions (`WebKitErrorDomain`, such as a load stopped by this policy). The user closing the view ends it as
/// ``MSALError/userCanceled``. Once the flow has ended, every later event is ignored and every navigation cancelled.
package struct EmbeddedWebviewNavigation: Sendable {
    /// Where a navigation would load.
    package enum Target: Sendable, Equatable {
        /// The web view's page.
        case mainFrame
        /// A frame inside the page.
        case subframe
        /// A new window (`target=_blank`, `window.open`): WebKit's `targetFrame` is nil.
        case newWindow
    }

    /// What the web view reports.
    package enum Event: Sendable {
        /// It asks whether to follow a navigation to the address (`decidePolicyFor navigationAction`).
        case navigation(URL?, target: Target, linkActivated: Bool)
        /// The page asks for a new window (`createWebViewWith`).
        case newWindow(URL?, linkActivated: Bool)
        /// A page finished loading.
        case finishedLoading(URL?)
        /// A load failed.
        case failedLoading(any Error)
        /// The user closed the sign-in view (the Cancel button, the window's close button).
        case userCanceled
        /// The call was cancelled (its task).
        case cancelled
    }

    /// Whether the web view follows the navigation asked about.
    package enum Policy: Sendable, Equatable {
        case allow, cancel
    }

    /// A notification the app is sent (``Foundation/NSNotification/Name/MSALWebAuthDidStartLoad`` ...).
    package enum Notice: Sendable {
        case didStartLoad(URL)
        case didFinishLoad(URL?)
        case didFail(MSALErrorInfo)
        case didComplete(URL)
    }

    /// How the flow ended.
    package enum Outcome: Sendable {
        /// The address that reached the redirect URI.
        case redirect(URL)
        case failure(MSALErrorInfo)
    }

    /// What to do about one event.
    package struct Step: Sendable {
        /// For a navigation: follow it or not.
        package var policy: Policy?
        /// The notifications to post, in order.
        package var notices: [Notice] = []
        /// An address to open in the system browser.
        package var openInBrowser: URL?
        /// Set when the flow has ended: close the view and finish with it.
        package var outcome: Outcome?
        /// A request to load in the web view instead of the navigation (the answer to a PKeyAuth challenge).
        package var load: Load?
    }

    /// A request the web view loads: a GET of `url` with `headers`.
    package struct Load: Sendable, Equatable {
        package var url: URL
        package var headers: [String: String]
    }

    /// The redirect URI the authorization response is sent to.
    package let redirectURI: String
    /// The call's correlation id, for the errors.
    package let correlationId: UUID
    /// Whether the flow has ended.
    package private(set) var isFinished = false
    /// The answer to a PKeyAuth challenge for a request to the given address.
    let deviceAuthentication: @Sendable (PKeyAuthChallenge, URL) -> String

    package init(redirectURI: String, correlationId: UUID,
                 deviceAuthentication: (@Sendable (PKeyAuthChallenge, URL) -> String)? = nil) {
        self.redirectURI = redirectURI
        self.correlationId = correlationId
        self.deviceAuthentication = deviceAuthentication ?? { challenge, audience in
            PKeyAuthResponse.authorization(challenge, audience: audience, registration: nil, now: Date())
        }
    }

    /// What to do about `event`.
    package mutating func handle(_ event: Event) -> Step {
        guard !isFinished else {
            if case .navigation = event { return Step(policy: .cancel) }
            return Step()
        }
        switch event {
        case .navigation(let url, let target, let linkActivated):
            return navigate(url, target: target, linkActivated: linkActivated)
        case .newWindow(let url, let linkActivated):
            guard !linkActivated, let url, url.scheme?.lowercased() == "https" else { return Step() }
            return Step(notices: [.didFinishLoad(url)], openInBrowser: url)
        case .finishedLoading(let url):
            return Step(notices: [.didFinishLoad(url)])
        case .failedLoading(let error):
            return failed(error)
        case .userCanceled:
            return finish(.failure(MSALErrorInfo(.userCanceled, description: "The user closed the sign-in view.",
                                                 correlationId: correlationId)))
        case .cancelled:
            return finish(.failure(.cancelled("The interactive sign-in", correlationId: correlationId)))
        }
    }

    private mutating func navigate(_ url: URL?, target: Target, linkActivated: Bool) -> Step {
        guard let url else { return Step(policy: .cancel) }
        let scheme = url.scheme?.lowercased() ?? ""
        let address = url.absoluteString
        var notices: [Notice] = []
        if target == .mainFrame, address != "about:blank", address != "about:srcdoc" {
            notices.append(.didStartLoad(url))
        }
        var step: Step
        if address.lowercased().hasPrefix(PKeyAuthChallenge.urnPrefix) {
            step = pkeyAuth(url)
            step.notices = notices + step.notices
            return step
        }
        switch scheme {
        case "msauth":
            step = finish(.failure(Self.brokerRequest(url, correlationId: correlationId)))
            // `msauth://wpj?app_link=…`: the page asks to install the broker (`MSIDWebWPJResponse.m:65-72`), which
            // MSAL for iOS/macOS opens (`MSIDLocalInteractiveController.m:181-211`).
            if url.host?.lowercased() == "wpj",
               let link = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "app_link" })?.value,
               let appLink = URL(string: link), appLink.scheme?.lowercased() == "https" {
                step.openInBrowser = appLink
            }
        case "browser":
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.scheme = "https"
            step = finish(.failure(MSALErrorInfo(
                .userCanceled, internalCode: .internalErrorSessionCanceled,
                description: "The sign-in page asked to continue in the system browser; it was opened there.",
                correlationId: correlationId)))
            step.openInBrowser = components?.url
        default:
            if address.lowercased().hasPrefix(redirectURI.lowercased()) {
                step = finish(.redirect(url))
            } else if address == "about:blank" || address == "about:srcdoc" {
                step = Step(policy: .allow)
            } else if linkActivated, (scheme == "https" && target == .newWindow) || !scheme.hasPrefix("http") {
                // Addresses that only mean something inside a page are not handed to another app.
                let local = Self.pageLocalSchemes.contains(scheme)
                step = Step(policy: .cancel, notices: local ? [] : [.didFinishLoad(url)], openInBrowser: local ? nil : url)
            } else if scheme != "https" {
                step = finish(.failure(.internal(
                    .internalErrorNonHttpsRedirect,
                    "The sign-in page went to an address that is not https (\(scheme.isEmpty ? "no scheme" : scheme)); it was not loaded.",
                    correlationId: correlationId)))
            } else {
                step = Step(policy: .allow)
            }
        }
        step.policy = step.policy ?? .cancel
        step.notices = notices + step.notices
        return step
    }

    /// The answer to a web view's PKeyAuth challenge, loaded in its place.
    private mutating func pkeyAuth(_ url: URL) -> Step {
        guard let challenge = PKeyAuthChallenge(url: url), let submit = challenge.submitURL,
              var components = URLComponents(url: submit, resolvingAgainstBaseURL: false) else {
            return finish(.failure(.internal(.internalErrorAuthorizationFailed, "Incomplete PKeyAuth challenge received.",
                                             correlationId: correlationId)))
        }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "x-client-Ver", value: ClientHeaders.version)]
        guard let address = components.url else {
            return finish(.failure(.internal(.internalErrorAuthorizationFailed, "The PKeyAuth challenge's SubmitUrl is not usable.",
                                             correlationId: correlationId)))
        }
        let headers = [PKeyAuthChallenge.advertisingHeader: PKeyAuthChallenge.advertisingVersion,
                       "Authorization": deviceAuthentication(challenge, submit)]
        return Step(policy: .cancel, load: Load(url: address, headers: headers))
    }

    private mutating func failed(_ error: any Error) -> Step {
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorCancelled { return Step() }
        if ns.domain == "WebKitErrorDomain" { return Step() }
        let info: MSALErrorInfo
        if ns.domain == NSURLErrorDomain {
            let host = (ns.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.host
            info = .transport(error, host: host, correlationId: correlationId)
        } else {
            info = .unexpected(error, correlationId: correlationId)
        }
        return finish(.failure(info))
    }

    private mutating func finish(_ outcome: Outcome) -> Step {
        isFinished = true
        switch outcome {
        case .redirect(let url): return Step(policy: .cancel, notices: [.didComplete(url)], outcome: outcome)
        case .failure(let error): return Step(policy: .cancel, notices: [.didFail(error)], outcome: outcome)
        }
    }

    /// Schemes that name something inside a page or on the device, never opened in another app.
    static let pageLocalSchemes: Set<String> = ["javascript", "data", "blob", "file", "about", ""]

    /// The error for a `msauth://` request: device registration (`wpj`, `enroll`, `compliance`) or a broker.
    static func brokerRequest(_ url: URL, correlationId: UUID) -> MSALErrorInfo {
        switch url.host?.lowercased() {
        case "wpj", "enroll", "compliance":
            return MSALErrorInfo(.workplaceJoinRequired,
                                 description: "The organization requires a registered or compliant device; register it "
                                    + "(Company Portal or Microsoft Authenticator) and sign in again.",
                                 correlationId: correlationId)
        default:
            // MSAL for iOS/macOS's embedded web view opens no broker from a page either: such an address is no
            // authorization response (`MSIDAADWebviewFactory.m:182-268`, `MSIDWebOAuth2AuthCodeResponse.m:43-55`).
            return .internal(.internalErrorInvalidResponse,
                             "The sign-in page asked to continue in a broker app (msauth://), which an embedded web view "
                                + "does not open: use a broker-capable redirect URI (msauth.<bundle id>://auth) so that the "
                                + "broker is asked before the web view.",
                             correlationId: correlationId)
        }
    }
}
