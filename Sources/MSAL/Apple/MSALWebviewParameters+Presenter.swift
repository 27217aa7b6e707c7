// The view controller interactive sign-in is presented from, as MSAL for iOS/macOS names it.
#if canImport(UIKit)
public import UIKit

/// The platform's view controller class: UIKit's `UIViewController` (iOS, iPadOS, visionOS, Mac Catalyst).
public typealias MSALViewController = UIViewController
#elseif canImport(AppKit)
public import AppKit

/// The platform's view controller class: AppKit's `NSViewController` (macOS).
public typealias MSALViewController = NSViewController
#endif

#if canImport(UIKit) || canImport(AppKit)
extension MSALWebviewParameters {
    /// Parameters that present sign-in over `authPresentationViewController`'s window, as MSAL for iOS/macOS does:
    ///
    /// ```swift
    /// self.webViewParameters = MSALWebviewParameters(authPresentationViewController: self)
    /// ```
    ///
    /// The controller is held weakly. When its view is not in a window when sign-in starts, the key window of the
    /// foreground active scene is used (on macOS the key, else main, window); with neither, the call fails with
    /// ``MSALInternalError/internalErrorNoViewController``.
    public convenience init(authPresentationViewController: MSALViewController) {
        self.init()
        parentViewController = authPresentationViewController
    }

    /// The view controller sign-in is presented from (held weakly). `nil`: the key window of the foreground active
    /// scene.
    public var parentViewController: MSALViewController! {
        get { presenter.object as? MSALViewController }
        set { presenter = ObjectReference(newValue, weak: true) }
    }
}
#endif
