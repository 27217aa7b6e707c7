import Foundation

/// Which user agent shows the sign-in pages.
public enum MSALWebviewType: Int, Sendable {
    /// The platform default: the system authentication session on Apple platforms, the system browser with a
    /// loopback redirect elsewhere.
    case `default` = 0
    /// The system authentication session (Apple platforms); elsewhere the same as ``default``.
    case authenticationSession = 1
    #if os(iOS)
    /// Safari view controller (iOS). Not offered: interactive calls fail with
    /// ``MSALInternalError/internalErrorInvalidParameter``.
    case safariViewController = 2
    /// An embedded web view (iOS). Not offered: interactive calls fail with
    /// ``MSALInternalError/internalErrorInvalidParameter``.
    case wkWebView = 3
    #else
    /// An embedded web view (macOS). Not offered: interactive calls fail with
    /// ``MSALInternalError/internalErrorInvalidParameter``; native apps use the system's session or browser.
    case wkWebView = 2
    #endif
}

/// How interactive sign-in is shown.
///
/// `MSALWebviewParameters()` uses the platform default user agent. On iOS pass the view controller the sign-in
/// sheet is shown over, as MSAL for iOS/macOS does: `MSALWebviewParameters(authPresentationViewController: self)`.
/// Set ``webAuthenticator`` to show the sign-in pages your own way (a custom browser launcher, an automated browser
/// in tests).
public final class MSALWebviewParameters: @unchecked Sendable {
    /// The user agent type. Default ``MSALWebviewType/default``. An embedded web view is not offered: interactive
    /// calls fail with ``MSALInternalError/internalErrorInvalidParameter`` unless ``webAuthenticator`` is set.
    @MSALLocked public var webviewType: MSALWebviewType = .default
    /// Whether the browser should not share cookies with other sessions, where the user agent supports it.
    @MSALLocked public var prefersEphemeralWebBrowserSession: Bool = false
    /// The user agent that opens the authorization URL and returns the redirect. `nil` selects the platform
    /// default: the user agent the application was created with (``MSALPlatformServices/webAuthenticator``).
    @MSALLocked public var webAuthenticator: (any MSALWebAuthenticator)?

    /// The view controller the sign-in is presented from (held weakly, as MSAL for iOS/macOS does); typed by the
    /// platform module (`parentViewController`).
    @MSALLocked package var presenter = ObjectReference(nil, weak: true)
    /// A web view the app asked sign-in to use (`customWebview`, held strongly); not offered.
    @MSALLocked package var customWebviewObject = ObjectReference(nil, weak: false)

    /// Creates parameters for the platform's default user agent.
    public init() {}

    /// Why the user agent these parameters ask for cannot be used, or nil when it can: an embedded web view or
    /// Safari view controller is not offered (the system authentication session or browser is).
    package var unsupportedUserAgent: String? {
        guard webAuthenticator == nil else { return nil }
        if customWebviewObject.object != nil {
            return "A custom web view (customWebview) is not offered; leave it nil to sign in in the system's authentication session or browser."
        }
        switch webviewType {
        case .default, .authenticationSession: return nil
        default:
            return "The web view type \(webviewType) is not offered; use .default or .authenticationSession."
        }
    }
}

/// A reference to an object of a platform UI framework, held weakly or strongly, that parameters carry from the
/// application to the user agent. Only read on the main actor by the user agent.
package struct ObjectReference: @unchecked Sendable {
    private weak var weakObject: AnyObject?
    private var strongObject: AnyObject?

    package init(_ object: AnyObject?, weak: Bool) {
        if weak { weakObject = object } else { strongObject = object }
    }

    /// The object, or nil when it is gone (weak) or was never set.
    package var object: AnyObject? { strongObject ?? weakObject }
}
