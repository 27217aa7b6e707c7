// The seeds' Azure AD B2C iOS sample ("Enable authentication in an iOS Swift app: Azure AD B2C"): its web view set-up
// block, unchanged, in a UIViewController subclass (the property it sets is ours). Its other blocks are fragments
// with `...`, or take a `UIButton` in an `@objc` method, which the stand-in's UIKit (Swift classes, not Objective-C
// ones) cannot type-check. Type-checked with the tutorial (scripts/apple-surface.sh).
import UIKit
import MSAL

class B2CViewController: UIViewController {
    var webViewParamaters: MSALWebviewParameters?

// ---- seed block at line 145 ----
func initWebViewParams() {
    self.webViewParamaters = MSALWebviewParameters(authPresentationViewController: self)
    self.webViewParamaters?.webviewType = .default
}
}
