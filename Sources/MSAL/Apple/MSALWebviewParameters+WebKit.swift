// MSAL for iOS/macOS's `customWebview`: declared so that code setting it compiles, refused when used.
#if canImport(WebKit)
public import WebKit

extension MSALWebviewParameters {
    /// A web view of the app to show sign-in in. Embedded web views are not offered: an interactive call with one
    /// set (and no ``webAuthenticator``) fails with ``MSALInternalError/internalErrorInvalidParameter``. Sign-in
    /// runs in the system's authentication session, which shares the browser's single sign-on.
    public var customWebview: WKWebView? {
        get { customWebviewObject.object as? WKWebView }
        set { customWebviewObject = ObjectReference(newValue, weak: false) }
    }
}
#endif
