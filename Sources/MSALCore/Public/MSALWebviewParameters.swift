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
    /// An embedded web view (`WKWebView`): MSAL's own sign-in view presented over the parent view controller, or
    /// the app's `customWebview`. Where WebKit is absent (Linux), interactive calls fail
    /// with ``MSALInternalError/internalErrorInvalidParameter``. The raw value is 3 on iOS and 2 elsewhere, as in
    /// MSAL for iOS/macOS.
    case wkWebView = 3
    #else
    /// An embedded web view (`WKWebView`): MSAL's own sign-in window, or the app's
    /// `customWebview`. Where WebKit is absent (Linux), interactive calls fail with
    /// ``MSALInternalError/internalErrorInvalidParameter``. The raw value is 2 here and 3 on iOS, as in MSAL for
    /// iOS/macOS.
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
    /// The user agent type. Default ``MSALWebviewType/default``. ``MSALWebviewType/wkWebView`` signs in in an
    /// embedded web view where WebKit exists; elsewhere, and for the Safari view controller, interactive calls fail
    /// with ``MSALInternalError/internalErrorInvalidParameter`` unless ``webAuthenticator`` is set.
    @MSALLocked public var webviewType: MSALWebviewType = .default
    /// Whether the browser should not share cookies with other sessions, where the user agent supports it.
    @MSALLocked public var prefersEphemeralWebBrowserSession: Bool = false
    /// The user agent that opens the authorization URL and returns the redirect. `nil` selects the platform
    /// default: the user agent the application was created with (``MSALPlatformServices/webAuthenticator``).
    @MSALLocked public var webAuthenticator: (any MSALWebAuthenticator)?

    /// The view controller the sign-in is presented from (held weakly, as MSAL for iOS/macOS does); typed by the
    /// platform module (`parentViewController`).
    @MSALLocked package var presenter = ObjectReference(nil, weak: true)
    /// A web view the app asked sign-in to use (`customWebview`, held strongly).
    @MSALLocked package var customWebviewObject = ObjectReference(nil, weak: false)
    /// The raw value of the modal presentation style of MSAL's embedded sign-in view (`presentationStyle`, iOS);
    /// 0 is UIKit's `fullScreen`, MSAL for iOS/macOS's default.
    @MSALLocked package var presentationStyleRawValue = 0

    /// Creates parameters for the platform's default user agent.
    public init() {}

    /// The user agent these parameters ask for.
    package enum UserAgentChoice {
        /// ``webAuthenticator``.
        case own(any MSALWebAuthenticator)
        /// The platform's user agent (the system authentication session or browser).
        case system
        /// An embedded web view (``MSALWebviewType/wkWebView``, or a custom web view).
        case embedded
        /// A user agent not offered, and why.
        case unsupported(String)
    }

    /// The user agent these parameters ask for: ``webAuthenticator`` when set, else an embedded web view for
    /// ``MSALWebviewType/wkWebView`` or a custom web view (MSAL for iOS/macOS uses a custom web view whatever the
    /// type), else the system's.
    package var userAgentChoice: UserAgentChoice {
        if let webAuthenticator { return .own(webAuthenticator) }
        if customWebviewObject.object != nil { return .embedded }
        switch webviewType {
        case .default, .authenticationSession: return .system
        case .wkWebView: return .embedded
        #if os(iOS)
        case .safariViewController:
            return .unsupported("The Safari view controller is not offered; use .default, .authenticationSession or .wkWebView.")
        #endif
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
