import Foundation

/// Which user agent shows the sign-in pages.
public enum MSALWebviewType: Int, Sendable {
    /// The platform default: the system browser with a loopback redirect outside Apple platforms.
    case `default` = 0
    /// The system authentication session (Apple platforms); elsewhere the same as ``default``.
    case authenticationSession = 1
    #if os(iOS)
    /// Safari view controller (iOS).
    case safariViewController = 2
    /// An embedded web view (iOS).
    case wkWebView = 3
    #else
    /// An embedded web view (macOS). Not available on Linux, where native apps must use the system browser.
    case wkWebView = 2
    #endif
}

/// How interactive sign-in is shown.
///
/// `MSALWebviewParameters()` uses the platform default user agent. Set ``webAuthenticator`` to show the sign-in
/// pages your own way (a custom browser launcher, an automated browser in tests).
public final class MSALWebviewParameters: @unchecked Sendable {
    /// The user agent type. Default ``MSALWebviewType/default``.
    @MSALLocked public var webviewType: MSALWebviewType = .default
    /// Whether the browser should not share cookies with other sessions, where the user agent supports it.
    @MSALLocked public var prefersEphemeralWebBrowserSession: Bool = false
    /// The user agent that opens the authorization URL and returns the redirect. `nil` selects the platform
    /// default: the user agent the application was created with (``MSALPlatformServices/webAuthenticator``).
    @MSALLocked public var webAuthenticator: (any MSALWebAuthenticator)?

    /// Creates parameters for the platform's default user agent.
    public init() {}
}
