// MSAL for iOS/macOS's embedded web view parameters: the app's own web view, the configuration MSAL recommends for
// it, and (iOS) the modal style of MSAL's own sign-in view.
#if canImport(WebKit)
public import WebKit
#if canImport(UIKit)
public import UIKit
#endif

extension MSALWebviewParameters {
    /// A web view of the app to sign in in (held strongly). When set, sign-in runs in it whatever ``webviewType``
    /// says (MSAL becomes its navigation and UI delegate while sign-in runs, and shows and hides nothing): show it
    /// before the call, and hide it on `NSNotification.Name.MSALWebAuthDidComplete` or `.MSALWebAuthDidFail`.
    /// Create it with ``defaultWKWebviewConfiguration``. See `MSALEmbeddedWebviewAuthenticator`.
    public var customWebview: WKWebView? {
        get { customWebviewObject.object as? WKWebView }
        set { customWebviewObject = ObjectReference(newValue, weak: false) }
    }

    /// The configuration MSAL for iOS/macOS recommends for a web view that shows sign-in, made afresh on each read:
    /// `PKeyAuth/1.0` in the user agent (device-based Conditional Access), the mobile content mode and inline media
    /// that starts without a tap on iOS (QR code and PIN sign-in use the camera), the desktop content mode on macOS.
    /// The website data store is the default, persistent one.
    @MainActor
    public static var defaultWKWebviewConfiguration: WKWebViewConfiguration {
        let configuration = WKWebViewConfiguration()
        configuration.applicationNameForUserAgent = "PKeyAuth/1.0"
        #if canImport(UIKit)
        configuration.defaultWebpagePreferences.preferredContentMode = .mobile
        configuration.mediaTypesRequiringUserActionForPlayback = []
        configuration.allowsInlineMediaPlayback = true
        #else
        configuration.defaultWebpagePreferences.preferredContentMode = .desktop
        #endif
        return configuration
    }
}

#if canImport(UIKit)
extension MSALWebviewParameters {
    /// The modal presentation style of MSAL's own embedded sign-in view (``MSALWebviewType/wkWebView`` without a
    /// ``customWebview``). Default `.fullScreen`, as MSAL for iOS/macOS's. No effect on the authentication session.
    public var presentationStyle: UIModalPresentationStyle {
        get { UIModalPresentationStyle(rawValue: presentationStyleRawValue) ?? .fullScreen }
        set { presentationStyleRawValue = newValue.rawValue }
    }
}
#endif
#endif
