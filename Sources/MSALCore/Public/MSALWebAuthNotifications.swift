public import Foundation

// The notifications of web authentication, named and valued as MSAL for iOS/macOS's
// (`MSALPublicClientStatusNotifications.h`: each value is the Objective-C symbol's name; Swift imports the four ending
// in "Notification" as `NSNotification.Name` members). They are posted to `NotificationCenter.default` with a nil
// object. An app that shows its own web view (`MSALWebviewParameters.customWebview`) hides it on
// ``Foundation/NSNotification/Name/MSALWebAuthDidComplete`` or ``Foundation/NSNotification/Name/MSALWebAuthDidFail``:
// a sign-in posts exactly one of the two.

extension NSNotification.Name {
    /// The embedded web view starts loading a page. `userInfo`: `"url"` (`URL`), `"webview"` (the web view).
    public static let MSALWebAuthDidStartLoad = NSNotification.Name("MSALWebAuthDidStartLoadNotification")
    /// The embedded web view finished loading a page, or handed a link to the system browser. `userInfo`: `"url"`
    /// (`URL`, when known), `"webview"`.
    public static let MSALWebAuthDidFinishLoad = NSNotification.Name("MSALWebAuthDidFinishLoadNotification")
    /// Web authentication ended with an error, the user's cancel included. `userInfo`: `"error"` (the
    /// ``MSALErrorInfo``, an `NSError` in `MSALErrorDomain`).
    public static let MSALWebAuthDidFail = NSNotification.Name("MSALWebAuthDidFailNotification")
    /// Web authentication reached the redirect URI. `userInfo`: `"url"` (the redirect with the response).
    public static let MSALWebAuthDidComplete = NSNotification.Name("MSALWebAuthDidCompleteNotification")
}

/// The name of the notification posted just before MSAL opens Microsoft Authenticator's request URL (a brokered
/// sign-in on iOS), with no object and no user info.
public let MSALWebAuthWillSwitchToBrokerApp: String = "MSALWebAuthWillSwitchToBrokerApp"
/// The name of the notification posted when Microsoft Authenticator's answer has been read, whether it carries tokens
/// or an error, with no object and no user info (MSAL for iOS/macOS's user info holds one of its internal types).
public let MSALWebAuthDidReceiveResponseFromBroker: String = "MSALWebAuthDidReceiveResponseFromBroker"

extension EmbeddedWebviewNavigation.Notice {
    /// Posts the notification to `NotificationCenter.default`, naming `webview` (the web view) where MSAL does.
    package func post(webview: AnyObject?) {
        let name: NSNotification.Name
        var userInfo: [String: Any] = [:]
        switch self {
        case .didStartLoad(let url):
            name = .MSALWebAuthDidStartLoad
            userInfo["url"] = url
            userInfo["webview"] = webview
        case .didFinishLoad(let url):
            name = .MSALWebAuthDidFinishLoad
            userInfo["url"] = url
            userInfo["webview"] = webview
        case .didFail(let error):
            name = .MSALWebAuthDidFail
            userInfo["error"] = error
        case .didComplete(let url):
            name = .MSALWebAuthDidComplete
            userInfo["url"] = url
        }
        NotificationCenter.default.post(name: name, object: nil, userInfo: userInfo)
    }
}
